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
6. Stop-loss and take-profit distances are clamped to [min, max] percent from entry; a SELL's take-profit,
   below entry, to at most ``max_sell_take_profit_percent`` (95: a price cannot fall 100 % or more).
7. When the input's volatility is known (``JudgeInput.volatility``: ATR over the reference price, or the
   estimate from realised volatility; ``domain/model/risk.py``), the rules engine's bounds hold for any
   engine: the stop into [``min_stop_atr``, ``max_stop_atr``] ATR (inside the percent bounds of 6, which
   win a conflict), the take-profit raised to ``min_reward_risk`` × the stop distance, and a BUY/SELL
   position cut to ``risk_budget_percent / stop % × 100`` (what loses at most the risk budget at the stop).
8. Risk warnings: blanks and duplicates dropped, at most ``max_risk_warnings`` kept.
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
from judge.domain.model.risk import (
    MAX_SELL_TAKE_PROFIT_PERCENT,
    MAX_STOP_ATR,
    MAX_STOP_LOSS_PERCENT,
    MAX_TAKE_PROFIT_PERCENT,
    MIN_REWARD_RISK,
    MIN_STOP_ATR,
    MIN_STOP_LOSS_PERCENT,
    MIN_TAKE_PROFIT_PERCENT,
    RISK_BUDGET_PERCENT,
    Volatility,
    risk_budget_cap,
    stop_bounds,
)


@dataclass(frozen=True)
class GuardrailPolicy:
    max_position_percent: float = 30.0
    min_stop_loss_percent: float = MIN_STOP_LOSS_PERCENT
    max_stop_loss_percent: float = MAX_STOP_LOSS_PERCENT
    min_take_profit_percent: float = MIN_TAKE_PROFIT_PERCENT
    max_take_profit_percent: float = MAX_TAKE_PROFIT_PERCENT
    max_sell_take_profit_percent: float = MAX_SELL_TAKE_PROFIT_PERCENT
    min_stop_atr: float = MIN_STOP_ATR
    max_stop_atr: float = MAX_STOP_ATR
    min_reward_risk: float = MIN_REWARD_RISK
    risk_budget_percent: float = RISK_BUDGET_PERCENT
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
        if not self.min_take_profit_percent <= self.max_sell_take_profit_percent < 100:
            raise ValueError("a SELL's take-profit bound must be at least the minimum and below 100")
        if not 0 < self.min_stop_atr <= self.max_stop_atr:
            raise ValueError("stop ATR bounds must satisfy 0 < min <= max")
        if self.min_reward_risk <= 0 or self.risk_budget_percent <= 0:
            raise ValueError("min_reward_risk and risk_budget_percent must be positive")


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
    if (volatility := judge_input.volatility) is not None:
        stop, take, position = _volatility_bounds(action, position, stop, take, volatility, policy, notes)
    if action is Action.SELL and take.distance_percent > policy.max_sell_take_profit_percent:
        high = policy.max_sell_take_profit_percent
        notes.append(
            GuardrailNote(
                "sell_take_profit_clamped",
                f"take_profit distance {take.distance_percent:g}% below entry → {high:g}% (a price cannot fall "
                "100% or more)",
            )
        )
        basis = _BOUNDED_BASIS[policy.language].format(basis=take.basis, low=policy.min_take_profit_percent, high=high)
        take = LevelProposal(distance_percent=high, basis=basis)
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


_ATR_BOUNDED_BASIS = {
    "zh": "{basis}（风控限制：{low_atr:g}–{high_atr:g} ATR，即 {low:.2f}–{high:.2f}%）",
    "en": "{basis} (guardrail: {low_atr:g}–{high_atr:g} ATR, {low:.2f}–{high:.2f}%)",
}
_REWARD_RISK_BASIS = {
    "zh": "{basis}（风控：盈亏比至少 {ratio:g}，即距入场价 {distance:.2f}%）",
    "en": "{basis} (guardrail: reward/risk at least {ratio:g}, {distance:.2f}% from entry)",
}


def _volatility_bounds(
    action: Action,
    position: float,
    stop: LevelProposal,
    take: LevelProposal,
    volatility: Volatility,
    policy: GuardrailPolicy,
    notes: list[GuardrailNote],
) -> tuple[LevelProposal, LevelProposal, float]:
    """Rule 7: the stop in ATR, the reward/risk floor, the risk budget (module doc)."""
    atr = volatility.atr_percent
    low, high = stop_bounds(
        volatility,
        min_percent=policy.min_stop_loss_percent,
        max_percent=policy.max_stop_loss_percent,
        min_atr=policy.min_stop_atr,
        max_atr=policy.max_stop_atr,
    )
    distance = min(max(stop.distance_percent, low), high)
    if distance != stop.distance_percent:
        notes.append(
            GuardrailNote(
                "stop_loss_atr_clamped",
                f"stop_loss distance {stop.distance_percent:g}% ({stop.distance_percent / atr:.2f} ATR) → "
                f"{distance:.2f}% ({distance / atr:.2f} ATR); allowed {policy.min_stop_atr:g}–"
                f"{policy.max_stop_atr:g} ATR = {low:.2f}–{high:.2f}% with one ATR = {atr:.2f}% ({volatility.source})",
            )
        )
        basis = _ATR_BOUNDED_BASIS[policy.language].format(
            basis=stop.basis, low_atr=policy.min_stop_atr, high_atr=policy.max_stop_atr, low=low, high=high
        )
        stop = LevelProposal(distance_percent=distance, basis=basis)
    floor = min(policy.min_reward_risk * stop.distance_percent, policy.max_take_profit_percent)
    if take.distance_percent < floor:
        ratio = take.distance_percent / stop.distance_percent
        notes.append(
            GuardrailNote(
                "take_profit_reward_risk_raised",
                f"take_profit distance {take.distance_percent:g}% is {ratio:.2f} × the {stop.distance_percent:.2f}% "
                f"stop → {floor:.2f}% (reward/risk at least {policy.min_reward_risk:g})",
            )
        )
        basis = _REWARD_RISK_BASIS[policy.language].format(
            basis=take.basis, ratio=policy.min_reward_risk, distance=floor
        )
        take = LevelProposal(distance_percent=floor, basis=basis)
    cap = risk_budget_cap(stop.distance_percent, policy.risk_budget_percent)
    if action is not Action.HOLD and position > cap:
        notes.append(
            GuardrailNote(
                "position_risk_budget_capped",
                f"position {position:g}% → {cap:g}%: at a {stop.distance_percent:.2f}% stop a position risks at "
                f"most {policy.risk_budget_percent:g}% of the portfolio ({policy.risk_budget_percent:g} / "
                f"{stop.distance_percent:.2f} × 100)",
            )
        )
        position = cap
    return stop, take, position


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
