"""Guardrails the service enforces on every engine's proposal, whatever the engine says.

In order (each change is recorded as a ``GuardrailNote``; nothing is adjusted silently):

1. ``confidence`` is clamped to [0, 1] (a non-finite value becomes 0).
2. ``position_percent`` is clamped to [0, max_position_percent] (JUDGE_MAX_POSITION_PERCENT, default 30).
3. Contradiction rule: an action that bets against the debate (BUY on a BEARISH outcome, SELL on a
   BULLISH one) is *rejected* (``ContradictoryVerdictError``) unless the engine states a
   ``contrarian_justification``. A justified contrarian verdict is accepted, noted, and its position is
   capped at ``max_position_percent × (1 − debate confidence)``: the surer the debate, the smaller the bet
   against it. NEUTRAL outcomes contradict nothing.
4. HOLD opens no position: its ``position_percent`` is 0.
5. A BUY (or SELL) needs a positive position: with none left after 1-4 the action becomes HOLD.
6. Stop-loss and take-profit distances are clamped to [min, max] percent from entry.
7. Risk warnings: blanks and duplicates dropped, at most ``max_risk_warnings`` kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from judge.application.dtos.verdict_dto import GuardrailNote
from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.exceptions import ContradictoryVerdictError
from judge.domain.model.enums import Action, opposes


@dataclass(frozen=True)
class GuardrailPolicy:
    max_position_percent: float = 30.0
    min_stop_loss_percent: float = 1.0
    max_stop_loss_percent: float = 30.0
    min_take_profit_percent: float = 1.0
    max_take_profit_percent: float = 200.0
    max_risk_warnings: int = 10
    language: Literal["zh", "en"] = "zh"
    """REPORT_LANGUAGE: what the guardrails add to a narrative field (a level's basis) is in it; their
    notes, like error messages, are in English."""

    def __post_init__(self) -> None:
        if not 0 < self.max_position_percent <= 100:
            raise ValueError("max_position_percent must be in (0, 100]")
        if not 0 < self.min_stop_loss_percent <= self.max_stop_loss_percent:
            raise ValueError("stop-loss bounds must satisfy 0 < min <= max")
        if not 0 < self.min_take_profit_percent <= self.max_take_profit_percent:
            raise ValueError("take-profit bounds must satisfy 0 < min <= max")


def apply_guardrails(
    proposal: VerdictProposal, judge_input: JudgeInput, policy: GuardrailPolicy
) -> tuple[VerdictProposal, tuple[GuardrailNote, ...]]:
    """Return the proposal made safe, and the notes saying what was changed. Raises
    ``ContradictoryVerdictError`` for an unjustified verdict against the debate (rule 3)."""
    notes: list[GuardrailNote] = []
    confidence = _clamp(proposal.confidence, 0.0, 1.0, "confidence_clamped", "confidence", notes)
    position = _clamp(
        proposal.position_percent,
        0.0,
        policy.max_position_percent,
        "position_clamped",
        "position_percent (JUDGE_MAX_POSITION_PERCENT)",
        notes,
    )
    action = proposal.action

    if opposes(action, judge_input.direction):
        position = _contrarian(proposal, judge_input, policy, position, notes)

    if action is Action.HOLD and position > 0:
        notes.append(GuardrailNote("hold_without_position", f"HOLD opens no position: {position:g}% → 0%"))
        position = 0.0
    if action is not Action.HOLD and position <= 0:
        notes.append(
            GuardrailNote("trade_without_position", f"{action.value} with a 0% position is not a trade: → HOLD")
        )
        action = Action.HOLD

    stop = _level(
        proposal.stop_loss, policy.min_stop_loss_percent, policy.max_stop_loss_percent, "stop_loss", notes, policy
    )
    take = _level(
        proposal.take_profit,
        policy.min_take_profit_percent,
        policy.max_take_profit_percent,
        "take_profit",
        notes,
        policy,
    )
    warnings = _warnings(proposal.risk_warnings, policy.max_risk_warnings, notes)
    safe = replace(
        proposal,
        action=action,
        position_percent=round(position, 2),
        confidence=round(confidence, 4),
        stop_loss=stop,
        take_profit=take,
        risk_warnings=warnings,
    )
    return safe, tuple(notes)


def _contrarian(
    proposal: VerdictProposal,
    judge_input: JudgeInput,
    policy: GuardrailPolicy,
    position: float,
    notes: list[GuardrailNote],
) -> float:
    against = f"{proposal.action.value} against a {judge_input.direction.value} debate outcome"
    against += f" (confidence {judge_input.confidence:.2f})"
    justification = proposal.contrarian_justification.strip()
    if not justification:
        raise ContradictoryVerdictError(
            f"the engine proposed {against} without a contrarian justification; verdict rejected"
        )
    cap = math.floor(policy.max_position_percent * (1.0 - judge_input.confidence) * 10) / 10
    detail = f"{against}, accepted on the engine's justification: {justification[:300]}"
    if position > cap:
        detail += f"; position {position:g}% → {cap:g}% (max {policy.max_position_percent:g}% × (1 − confidence))"
        position = cap
    notes.append(GuardrailNote("contrarian_verdict", detail))
    return position


def _clamp(value: float, low: float, high: float, rule: str, what: str, notes: list[GuardrailNote]) -> float:
    if not math.isfinite(value):
        notes.append(GuardrailNote(rule, f"{what} {value!r} is not a number → {low:g}"))
        return low
    bounded = min(max(value, low), high)
    if bounded != value:
        notes.append(GuardrailNote(rule, f"{what} {value:g} → {bounded:g} (allowed {low:g}–{high:g})"))
    return bounded


_BOUNDED_BASIS = {"zh": "{basis}（风控限制：{low:g}–{high:g}%）", "en": "{basis} (guardrail: {low:g}–{high:g}%)"}


def _level(
    level: LevelProposal, low: float, high: float, name: str, notes: list[GuardrailNote], policy: GuardrailPolicy
) -> LevelProposal:
    distance = _clamp(level.distance_percent, low, high, f"{name}_clamped", f"{name} distance %", notes)
    if distance == level.distance_percent:
        return level
    basis = _BOUNDED_BASIS[policy.language].format(basis=level.basis, low=low, high=high)
    return LevelProposal(distance_percent=distance, basis=basis)


def _warnings(warnings: tuple[str, ...], limit: int, notes: list[GuardrailNote]) -> tuple[str, ...]:
    kept: list[str] = []
    for warning in warnings:
        text = warning.strip()
        if text and text not in kept:
            kept.append(text)
    if len(kept) > limit:
        notes.append(GuardrailNote("risk_warnings_truncated", f"{len(kept)} risk warnings → first {limit}"))
        kept = kept[:limit]
    return tuple(kept)
