"""What a judge engine (LLM or rules) proposes, before the service's guardrails check and complete it."""

from __future__ import annotations

from dataclasses import dataclass

from judge.domain.model.enums import Action, TimeHorizon
from shared_contracts.engine import EngineInfo
from shared_contracts.numbers_check import NumbersCheck


@dataclass(frozen=True)
class LevelProposal:
    """A stop-loss or take-profit as an unsigned distance from the entry price, in percent.

    The service gives it its sign (a long's stop is below entry, a short's above) and, when a reference
    price is known, its absolute price."""

    distance_percent: float
    basis: str


@dataclass(frozen=True)
class VerdictProposal:
    action: Action
    position_percent: float
    confidence: float
    entry_strategy: str
    stop_loss: LevelProposal
    take_profit: LevelProposal
    time_horizon: TimeHorizon
    risk_warnings: tuple[str, ...]
    reasoning: str
    engine: EngineInfo
    market_exposure: float | None = None
    """The share of the position the market view kept; None: not heard (or not yet applied, below)."""
    exposure_applied: bool = False
    """Whether ``position_percent`` already includes the market exposure: the rules engine sizes with it (True);
    for any other engine the guardrails multiply a BUY/SELL position by the exposure of the input's market view
    and set ``market_exposure``, so no position is scaled twice."""
    numbers_check: NumbersCheck | None = None
    """What the numbers gate found in an LLM proposal's texts."""
