"""Guardrails the service enforces on every engine's proposal, whatever the engine says.

In order (each change is recorded as a ``GuardrailAdjustment``; nothing is adjusted silently):

1. ``confidence`` is clamped to [0, 1] (a non-finite value becomes 0).
2. ``position_percent`` is clamped to [0, max_position_percent] (JUDGE_MAX_POSITION_PERCENT, default 30).
3. The debate's side (``debate_side``): BUY only on a BULLISH debate, SELL only on a BEARISH one, HOLD on any.
   A BUY or SELL off the debate's side (a BUY on a NEUTRAL or BEARISH outcome, a SELL on a NEUTRAL or BULLISH
   one) becomes a HOLD with no position, whatever the engine's reasons; the note names the proposed action and
   the debate's direction, and a sentence saying so ends the reasoning (REPORT_LANGUAGE).
4. HOLD opens no position: its ``position_percent`` is 0.
5. A BUY (or SELL) needs a positive position: with none left after 1-4 the action becomes HOLD.
6. Stop-loss and take-profit distances are clamped to their percent bounds from entry (``domain/model/risk.py``);
   a SELL's take-profit, below entry, to at most 95 % (a price cannot fall 100 % or more).
7. When the input's volatility is known (``JudgeInput.volatility``: ATR over the reference price, or the
   estimate from realised volatility; ``domain/model/risk.py``), the rules engine's bounds hold for any
   engine: the stop into [``MIN_STOP_ATR``, ``MAX_STOP_ATR``] ATR (inside the percent bounds of 6, which
   win a conflict), the take-profit raised to ``MIN_REWARD_RISK`` × the stop distance, and a BUY/SELL
   position cut to ``RISK_BUDGET_PERCENT / stop % × 100`` (what loses at most the risk budget at the stop).
8. Market exposure (``market_exposure``): when the input has a market view and the engine did not size with it
   (``VerdictProposal.exposure_applied``; the rules engine does), a BUY/SELL position is multiplied by
   ``risk.MARKET_EXPOSURE[view]`` (FAVORABLE 1.0, NEUTRAL 0.8, UNFAVORABLE 0.6), after every cap above (the rules
   engine's limit × exposure), rounded down to 0.01 %; the verdict's ``market_exposure`` says the share kept.
9. Risk warnings: blanks and duplicates dropped, at most ``MAX_RISK_WARNINGS`` kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model import risk
from judge.domain.model.enums import Action, on_side
from shared_contracts.enum_words import enum_word
from shared_contracts.judge import GuardrailAdjustment

MAX_RISK_WARNINGS = 10


@dataclass(frozen=True)
class GuardrailPolicy:
    """JUDGE_MAX_POSITION_PERCENT, and the REPORT_LANGUAGE of what the guardrails add to a narrative field (a
    level's basis); their notes, like error messages, are in English."""

    max_position_percent: float = 30.0
    language: Literal["zh", "en"] = "zh"

    def __post_init__(self) -> None:
        if not 0 < self.max_position_percent <= 100:
            raise ValueError("max_position_percent must be in (0, 100]")


class _Notes(list[GuardrailAdjustment]):
    def add(self, rule: str, detail: str) -> None:
        self.append(GuardrailAdjustment(rule=rule, detail=detail))


_BOUNDED_BASIS = {"zh": "{basis}（风控限制：{low:g}–{high:g}%）", "en": "{basis} (guardrail: {low:g}–{high:g}%)"}
_ATR_BOUNDED_BASIS = {
    "zh": "{basis}（风控限制：{low_atr:g}–{high_atr:g} ATR，即 {low:.2f}–{high:.2f}%）",
    "en": "{basis} (guardrail: {low_atr:g}–{high_atr:g} ATR, {low:.2f}–{high:.2f}%)",
}
_REWARD_RISK_BASIS = {
    "zh": "{basis}（风控：盈亏比至少 {ratio:g}，即距入场价 {distance:.2f}%）",
    "en": "{basis} (guardrail: reward/risk at least {ratio:g}, {distance:.2f}% from entry)",
}


def apply_guardrails(
    proposal: VerdictProposal, judge_input: JudgeInput, policy: GuardrailPolicy
) -> tuple[VerdictProposal, tuple[GuardrailAdjustment, ...]]:
    """Return the proposal made safe, and the notes saying what was changed."""
    notes = _Notes()
    confidence = _clamp(proposal.confidence, 0.0, 1.0, "confidence_clamped", "confidence", notes)
    what = "position_percent (JUDGE_MAX_POSITION_PERCENT)"
    position = _clamp(proposal.position_percent, 0.0, policy.max_position_percent, "position_clamped", what, notes)
    action, reasoning = proposal.action, proposal.reasoning
    if not on_side(action, judge_input.direction):
        reasoning += _off_side(action, judge_input, position, policy, notes)
        action, position = Action.HOLD, 0.0
    if action is Action.HOLD and position > 0:
        notes.add("hold_without_position", f"HOLD opens no position: {position:g}% → 0%")
        position = 0.0
    if action is not Action.HOLD and position <= 0:
        notes.add("trade_without_position", f"{action.value} with a 0% position is not a trade: → HOLD")
        action = Action.HOLD
    bounded = _BOUNDED_BASIS[policy.language]
    stop = _level(
        proposal.stop_loss, risk.MIN_STOP_LOSS_PERCENT, risk.MAX_STOP_LOSS_PERCENT, "stop_loss", notes, bounded
    )
    low, high = risk.MIN_TAKE_PROFIT_PERCENT, risk.MAX_TAKE_PROFIT_PERCENT
    take = _level(proposal.take_profit, low, high, "take_profit", notes, bounded)
    if (volatility := judge_input.volatility) is not None:
        stop, take, position = _volatility_bounds(action, position, stop, take, volatility, policy, notes)
    exposure = proposal.market_exposure
    if not proposal.exposure_applied:
        exposure = risk.market_exposure(judge_input.market_view)
        if exposure is not None and action is not Action.HOLD:
            position = _exposed(action, position, exposure, judge_input.market_view, notes)
    if action is Action.SELL and take.distance_percent > risk.MAX_SELL_TAKE_PROFIT_PERCENT:
        high = risk.MAX_SELL_TAKE_PROFIT_PERCENT
        below = f"take_profit distance {take.distance_percent:g}% below entry → {high:g}%"
        notes.add("sell_take_profit_clamped", f"{below} (a price cannot fall 100% or more)")
        take = LevelProposal(distance_percent=high, basis=bounded.format(basis=take.basis, low=low, high=high))
    safe = replace(
        proposal,
        action=action,
        position_percent=round(position, 2),
        confidence=round(confidence, 4),
        stop_loss=stop,
        take_profit=take,
        risk_warnings=_warnings(proposal.risk_warnings, notes),
        reasoning=reasoning,
        market_exposure=exposure,
        exposure_applied=True,
    )
    return safe, tuple(notes)


def _exposed(action: Action, position: float, exposure: float, view: str | None, notes: _Notes) -> float:
    """Rule 8: ``position`` × the market exposure, rounded down to 0.01 % (at least 0.01 %)."""
    scaled = max(math.floor(position * exposure * 100 + 1e-6) / 100, 0.01)
    if scaled != position:
        table = ", ".join(f"{name} {share:g}" for name, share in risk.MARKET_EXPOSURE.items())
        notes.add(
            "market_exposure",
            f"{action.value} position {position:g}% × market exposure {exposure:g} (market view {view}; {table}) "
            f"→ {scaled:g}%",
        )
    return scaled


_OFF_SIDE = {
    "zh": "（辩论方向为{direction}：买入只在看多、卖出只在看空的辩论上执行，此{action}改为持有。）",
    "en": " (The debate is {direction}: a BUY is taken only on a BULLISH debate and a SELL only on a BEARISH one, so "
    "this {action} is a HOLD.)",
}


def _off_side(action: Action, judge_input: JudgeInput, position: float, policy: GuardrailPolicy, notes: _Notes) -> str:
    """Rule 3: the note of a BUY/SELL off the debate's side made a HOLD, and the sentence the reasoning gets."""
    direction = judge_input.direction.value
    notes.add(
        "debate_side",
        f"{action.value} proposed on a {direction} debate outcome (confidence {judge_input.confidence:.2f}): BUY "
        f"only on BULLISH, SELL only on BEARISH → HOLD, position {position:g}% → 0%",
    )
    language = policy.language
    return _OFF_SIDE[language].format(
        direction=enum_word(direction, language), action=enum_word(action.value, language)
    )


def _clamp(value: float, low: float, high: float, rule: str, what: str, notes: _Notes) -> float:
    if not math.isfinite(value):
        notes.add(rule, f"{what} {value!r} is not a number → {low:g}")
        return low
    bounded = min(max(value, low), high)
    if bounded != value:
        notes.add(rule, f"{what} {value:g} → {bounded:g} (allowed {low:g}–{high:g})")
    return bounded


def _level(level: LevelProposal, low: float, high: float, name: str, notes: _Notes, bounded: str) -> LevelProposal:
    distance = _clamp(level.distance_percent, low, high, f"{name}_clamped", f"{name} distance %", notes)
    if distance == level.distance_percent:
        return level
    return LevelProposal(distance_percent=distance, basis=bounded.format(basis=level.basis, low=low, high=high))


def _volatility_bounds(
    action: Action,
    position: float,
    stop: LevelProposal,
    take: LevelProposal,
    volatility: risk.Volatility,
    policy: GuardrailPolicy,
    notes: _Notes,
) -> tuple[LevelProposal, LevelProposal, float]:
    """Rule 7: the stop in ATR, the reward/risk floor, the risk budget (module doc)."""
    atr, language = volatility.atr_percent, policy.language
    low, high = risk.stop_bounds(volatility)
    distance = min(max(stop.distance_percent, low), high)
    if distance != stop.distance_percent:
        notes.add(
            "stop_loss_atr_clamped",
            f"stop_loss distance {stop.distance_percent:g}% ({stop.distance_percent / atr:.2f} ATR) → "
            f"{distance:.2f}% ({distance / atr:.2f} ATR); allowed {risk.MIN_STOP_ATR:g}–{risk.MAX_STOP_ATR:g} ATR = "
            f"{low:.2f}–{high:.2f}% with one ATR = {atr:.2f}% ({volatility.source})",
        )
        basis = _ATR_BOUNDED_BASIS[language].format(
            basis=stop.basis, low_atr=risk.MIN_STOP_ATR, high_atr=risk.MAX_STOP_ATR, low=low, high=high
        )
        stop = LevelProposal(distance_percent=distance, basis=basis)
    floor = min(risk.MIN_REWARD_RISK * stop.distance_percent, risk.MAX_TAKE_PROFIT_PERCENT)
    if take.distance_percent < floor:
        ratio = take.distance_percent / stop.distance_percent
        notes.add(
            "take_profit_reward_risk_raised",
            f"take_profit distance {take.distance_percent:g}% is {ratio:.2f} × the {stop.distance_percent:.2f}% "
            f"stop → {floor:.2f}% (reward/risk at least {risk.MIN_REWARD_RISK:g})",
        )
        basis = _REWARD_RISK_BASIS[language].format(basis=take.basis, ratio=risk.MIN_REWARD_RISK, distance=floor)
        take = LevelProposal(distance_percent=floor, basis=basis)
    cap, budget = risk.risk_budget_cap(stop.distance_percent), risk.RISK_BUDGET_PERCENT
    if action is not Action.HOLD and position > cap:
        notes.add(
            "position_risk_budget_capped",
            f"position {position:g}% → {cap:g}%: at a {stop.distance_percent:.2f}% stop a position risks at "
            f"most {budget:g}% of the portfolio ({budget:g} / {stop.distance_percent:.2f} × 100)",
        )
        position = cap
    return stop, take, position


def _warnings(warnings: tuple[str, ...], notes: _Notes) -> tuple[str, ...]:
    kept = list(dict.fromkeys(text for warning in warnings if (text := warning.strip())))
    if len(kept) > MAX_RISK_WARNINGS:
        notes.add("risk_warnings_truncated", f"{len(kept)} risk warnings → first {MAX_RISK_WARNINGS}")
        kept = kept[:MAX_RISK_WARNINGS]
    return tuple(kept)
