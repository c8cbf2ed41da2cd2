"""VerdictDTO: the judge's answer after the guardrails (the presentation maps it to the wire ``Verdict``)."""

from __future__ import annotations

from dataclasses import dataclass

from judge.domain.model.enums import Action, TimeHorizon
from shared_contracts.engine import EngineInfo
from shared_contracts.numbers_check import NumbersCheck


@dataclass(frozen=True)
class PriceLevelDTO:
    percent_from_entry: float
    """Signed: a long's stop is negative and its take-profit positive; a short's the other way round."""
    price: float | None
    """The absolute level, when the input carried a reference price."""
    basis: str


@dataclass(frozen=True)
class GuardrailNote:
    rule: str
    detail: str


@dataclass(frozen=True)
class VerdictDTO:
    symbol: str
    action: Action
    position_percent: float
    confidence: float
    entry_strategy: str
    stop_loss: PriceLevelDTO
    take_profit: PriceLevelDTO
    time_horizon: TimeHorizon
    risk_warnings: tuple[str, ...]
    reasoning: str
    engine: EngineInfo
    guardrail_adjustments: tuple[GuardrailNote, ...] = ()
    position_shares: int | None = None
    """The position in whole lots of shares, when the input had a portfolio value and a reference price
    and the verdict trades (``application/position_lots.py``)."""
    score: float | None = None
    """The signed conviction in [-1, 1] the action was decided on (the stock's composite standing)."""
    universe_rank: float | None = None
    """The stock's percentile (0-1) among its reference universe by the same composite, where computed."""
    market_exposure: float | None = None
    """The share of the position the market view kept (already in ``position_percent``)."""
    numbers_check: NumbersCheck | None = None
