"""The rules engine's numbers: thresholds and formulas (README "Rules engine" restates them).

action     BUY if BULLISH and confidence >= 0.45; SELL if BEARISH and confidence >= 0.45; else HOLD.
risk level LOW for 0-1 risks (named risk factors, plus one when experts failed), MEDIUM for 2-3, HIGH for 4+.
confidence the debate's confidence × (1 − 0.05 × min(open disagreements, 4)); for BUY/SELL then mapped through
           the in-sample calibration (``calibrated_confidence``): the share of such calls that made money.
horizon    HOLD → SHORT_TERM (revisit soon). A trade with an ``evidence_horizon`` → that horizon (the time
           scale of the evidence that carried the debate). Otherwise: 3+ open disagreements or HIGH risk →
           SHORT_TERM; confidence >= 0.80 with LOW risk → LONG_TERM; else MEDIUM_TERM.

With volatility (``JudgeInput.volatility``: one ATR in percent of the reference price, from ``atr`` and
``reference_price``, else estimated from ``realised_volatility_pct``; ``domain/model/risk.py``):
stop       ``STOP_ATR_MULTIPLE`` (2) ATR from entry; moved to ``ANCHOR_BUFFER_ATR`` (0.25) ATR beyond the
           nearest support (long) / resistance (short) that lies ``ANCHOR_BAND_MIN_ATR``…``ANCHOR_BAND_MAX_ATR``
           (1…3) ATR away, the band × ``anchor_scale(horizon)`` (1 short, 1.73 medium, 2.45 long: issue 38);
           kept within ``MIN_STOP_ATR``…``MAX_STOP_ATR`` (1…4) ATR and the guardrails'
           1…30 % (which win a conflict).
take       ``MIN_REWARD_RISK`` (2) × the stop distance; or the nearest resistance (long) / support (short)
           or end of the intrinsic value range beyond that, up to ``MAX_TARGET_REWARD_RISK`` (5) × the stop.
no price   a BUY/SELL without a reference close or a volatility measure is a HOLD (``JudgeInput.unpriced``).
position   (BUY/SELL) risk = ``RISK_BUDGET_PERCENT`` (1 % of the portfolio) × clip((confidence − 0.50) /
           0.50, 0, 1) × (1 − min(0.10 × risks, 0.50)); position = risk / stop % × 100, at most
           min(max, ``RISK_BUDGET_PERCENT`` / stop % × 100); rounded down to 0.5 %, at least 0.5 % (or the
           limit, if smaller); HOLD → 0.

Without volatility (the percentage rules; the level's basis says so):
position   (BUY/SELL) max × clip((confidence − 0.50) / 0.50, 0, 1) × (1 − min(0.10 × risks, 0.50)),
           rounded down to 0.5 %, at least 0.5 % (or max, if smaller); HOLD → 0.
stop/take  by risk level: LOW 8 % / 20 %, MEDIUM 6 % / 15 %, HIGH 5 % / 10 % from entry. With a reference
           price and key levels the stop moves to 1 % beyond the nearest support (long) / resistance
           (short) when that lies 2 %…2×stop away, and the take-profit to the nearest resistance (long) /
           support (short) when that lies between 1×stop (reward ≥ risk) and 3×take away.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from judge.domain.model import risk
from judge.domain.model.enums import Action, Direction, RiskLevel, TimeHorizon
from shared_contracts.judge import KeyLevels

ACTION_THRESHOLD = 0.45  # how it was chosen: docs/decisions.md, "Decision policy (issue 28)"
SIZING_FLOOR = 0.50  # sizing scales confidence from here (below it: the smallest position)
RISK_DISCOUNT_PER_FACTOR = 0.10
MAX_RISK_DISCOUNT = 0.50
POSITION_STEP = 0.5
LONG_TERM_CONFIDENCE = 0.80
CONTESTED_DISAGREEMENTS = 3
DISAGREEMENT_DISCOUNT = 0.05
MAX_DISAGREEMENT_DISCOUNTS = 4
STOP_TAKE_BY_RISK: dict[RiskLevel, tuple[float, float]] = {
    RiskLevel.LOW: (8.0, 20.0),
    RiskLevel.MEDIUM: (6.0, 15.0),
    RiskLevel.HIGH: (5.0, 10.0),
}
LEVEL_BUFFER_PERCENT = 1.0
MIN_LEVEL_STOP_PERCENT = 2.0

STOP_ATR_MULTIPLE = 2.0  # the stop's distance in ATR when no support/resistance lies in the anchor band
ANCHOR_BAND_MIN_ATR = 1.0  # a support (long) / resistance (short) this many ATR away anchors the stop
ANCHOR_BAND_MAX_ATR = 3.0
ANCHOR_BUFFER_ATR = 0.25
"""How far beyond the anchoring level the stop goes."""
MAX_TARGET_REWARD_RISK = 5.0
"""A key level or valuation bound further than this many stop distances is not a take-profit."""


MARKET_EXPOSURE = risk.MARKET_EXPOSURE
"""The share of a stock-specific position the market view keeps (``domain.model.risk``, where the guardrails read it
for the other engines): exposure, never direction."""
STANDING_HORIZON = TimeHorizon.SHORT_TERM
"""The composite's factors (one-month reversal, volatility, turnover, size) are monthly signals, rebalanced
each month: a trade on them is a short-term one."""
HORIZON_DAYS = {TimeHorizon.SHORT_TERM: 20, TimeHorizon.MEDIUM_TERM: 60, TimeHorizon.LONG_TERM: 120}
"""Trading days a horizon means (the evaluation scores trades over the same)."""
BASE_HORIZON_DAYS = 20


def stop_multiple(horizon: TimeHorizon) -> float:
    """The stop's distance in ATR for ``horizon``: ``STOP_ATR_MULTIPLE`` over 20 days, growing with the square
    root of the horizon (a random walk's range does): 2 ATR short, 3.46 medium, 4.90 long (capped by the
    stop bounds)."""
    return round(STOP_ATR_MULTIPLE * math.sqrt(HORIZON_DAYS[horizon] / BASE_HORIZON_DAYS), 4)


def anchor_scale(horizon: TimeHorizon) -> float:
    """How far the stop's anchor band reaches for ``horizon``: 1 over 20 days, ``stop_multiple`` / 2 beyond (the
    same square-root growth), so a longer trade is never stopped on a level a short one would use."""
    return stop_multiple(horizon) / STOP_ATR_MULTIPLE


def standing_action(side: str) -> Action:
    return {"BULLISH": Action.BUY, "BEARISH": Action.SELL}.get(side, Action.HOLD)


def market_exposure(view: str | None) -> float | None:
    return risk.market_exposure(view)


def size_standing(action: Action, risk_count: int, stop_percent: float, max_position: float, exposure: float) -> float:
    """A stock-specific trade: the full risk budget × the risk factor at the stop, × the market exposure;
    rounded down to 0.5 % (at least 0.5 %, or the limit), within the limit; HOLD → 0."""
    if action is Action.HOLD:
        return 0.0
    raw = risk.RISK_BUDGET_PERCENT * risk_multiplier(risk_count) * exposure / stop_percent * 100.0
    limit = position_limit(stop_percent, max_position) * exposure
    stepped = math.floor(min(raw, limit) / POSITION_STEP + 1e-9) * POSITION_STEP
    return max(stepped, min(POSITION_STEP, limit))


def scaled(position: float, exposure: float | None) -> float:
    """``position`` × the market exposure, rounded down to 0.5 % (at least 0.5 % of a non-zero position)."""
    if exposure is None or position == 0.0:
        return position
    return max(math.floor(position * exposure / POSITION_STEP + 1e-9) * POSITION_STEP, POSITION_STEP)


def decide_action(direction: Direction, confidence: float) -> Action:
    if confidence >= ACTION_THRESHOLD and direction is Direction.BULLISH:
        return Action.BUY
    if confidence >= ACTION_THRESHOLD and direction is Direction.BEARISH:
        return Action.SELL
    return Action.HOLD


def risk_multiplier(risk_count: int) -> float:
    return 1.0 - min(RISK_DISCOUNT_PER_FACTOR * risk_count, MAX_RISK_DISCOUNT)


def confidence_scale(confidence: float) -> float:
    return min(max((confidence - SIZING_FLOOR) / (1.0 - SIZING_FLOOR), 0.0), 1.0)


def size_position(action: Action, confidence: float, risk_count: int, max_position: float) -> float:
    if action is Action.HOLD:
        return 0.0
    raw = max_position * confidence_scale(confidence) * risk_multiplier(risk_count)
    stepped = math.floor(raw / POSITION_STEP + 1e-9) * POSITION_STEP
    return min(max_position, max(stepped, POSITION_STEP))


def risk_level(risk_count: int) -> RiskLevel:
    if risk_count <= 1:
        return RiskLevel.LOW
    if risk_count <= 3:
        return RiskLevel.MEDIUM
    return RiskLevel.HIGH


def size_by_risk_budget(
    action: Action, confidence: float, risk_count: int, stop_percent: float, max_position: float
) -> float:
    """The position that risks ``RISK_BUDGET_PERCENT`` × conviction at the stop (module doc)."""
    if action is Action.HOLD:
        return 0.0
    raw = budget_risk(confidence, risk_count) / stop_percent * 100.0
    limit = position_limit(stop_percent, max_position)
    stepped = math.floor(raw / POSITION_STEP + 1e-9) * POSITION_STEP
    return min(limit, max(stepped, POSITION_STEP))


def budget_risk(confidence: float, risk_count: int) -> float:
    """The percent of the portfolio this trade may lose at its stop."""
    return risk.RISK_BUDGET_PERCENT * confidence_scale(confidence) * risk_multiplier(risk_count)


def position_limit(stop_percent: float, max_position: float) -> float:
    return min(max_position, risk.risk_budget_cap(stop_percent))


def horizon(
    action: Action,
    confidence: float,
    level: RiskLevel,
    disagreements: int,
    evidence_horizon: TimeHorizon | None = None,
) -> TimeHorizon:
    if action is Action.HOLD:
        return TimeHorizon.SHORT_TERM
    if evidence_horizon is not None:
        return evidence_horizon
    if disagreements >= CONTESTED_DISAGREEMENTS or level is RiskLevel.HIGH:
        return TimeHorizon.SHORT_TERM
    if confidence >= LONG_TERM_CONFIDENCE and level is RiskLevel.LOW:
        return TimeHorizon.LONG_TERM
    return TimeHorizon.MEDIUM_TERM


def verdict_confidence(confidence: float, disagreements: int) -> float:
    discount = DISAGREEMENT_DISCOUNT * min(disagreements, MAX_DISAGREEMENT_DISCOUNTS)
    return round(confidence * (1.0 - discount), 4)


# (raw verdict confidence, calibrated) knots: a BUY/SELL reports the in-sample share of profitable calls among
# those with its raw score (``python -m evaluation.calibration_fit``; docs/decisions.md, "Confidence calibration").
CONFIDENCE_CALIBRATION = ((0.4658, 0.3844), (0.5191, 0.3844), (0.5936, 0.3844), (0.6979, 0.3844))


def calibrated_confidence(raw: float) -> float:
    """``raw`` mapped through ``CONFIDENCE_CALIBRATION`` (linear between knots, flat beyond the ends)."""
    knots = CONFIDENCE_CALIBRATION
    if raw <= knots[0][0]:
        return knots[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(knots):
        if raw <= x1:
            return round(y0 + (y1 - y0) * (raw - x0) / (x1 - x0), 4)
    return knots[-1][1]


LevelSource = Literal["risk_level", "key_level", "atr", "reward_risk", "valuation"]


@dataclass(frozen=True)
class LevelChoice:
    """``anchor``: the key level (or valuation bound) the distance was taken from, None for a computed one;
    ``bounded``: the stop bounds (``domain.model.risk.stop_bounds``) changed the distance."""

    distance_percent: float
    anchor: float | None
    source: LevelSource = "risk_level"
    bounded: bool = False


def choose_levels(
    action: Action, level: RiskLevel, reference_price: float | None, key_levels: KeyLevels
) -> tuple[LevelChoice, LevelChoice]:
    """(stop, take-profit) distances from entry; anchored on key levels when they fit (module doc)."""
    base_stop, base_take = STOP_TAKE_BY_RISK[level]
    stop, take = LevelChoice(base_stop, None), LevelChoice(base_take, None)
    if reference_price is None:
        return stop, take
    short = action is Action.SELL
    stop_side = key_levels.resistance if short else key_levels.support
    take_side = key_levels.support if short else key_levels.resistance
    stop_anchor = _nearest(stop_side, reference_price, above=short)
    if stop_anchor is not None:
        buffered = (
            stop_anchor * (1 + LEVEL_BUFFER_PERCENT / 100) if short else stop_anchor * (1 - LEVEL_BUFFER_PERCENT / 100)
        )
        distance = abs(buffered - reference_price) / reference_price * 100
        if MIN_LEVEL_STOP_PERCENT <= distance <= 2 * base_stop:
            stop = LevelChoice(distance, stop_anchor, "key_level")
    take_anchor = _nearest(take_side, reference_price, above=not short)
    if take_anchor is not None:
        distance = abs(take_anchor - reference_price) / reference_price * 100
        if stop.distance_percent <= distance <= 3 * base_take:
            take = LevelChoice(distance, take_anchor, "key_level")
    return stop, take


def atr_stop(
    action: Action,
    volatility: risk.Volatility,
    reference_price: float | None,
    key_levels: KeyLevels,
    horizon: TimeHorizon = TimeHorizon.SHORT_TERM,
) -> LevelChoice:
    """``stop_multiple(horizon)`` ATR, or just beyond a support/resistance in the anchor band scaled to the
    horizon (``anchor_scale``; module doc)."""
    atr = volatility.atr_percent
    stop = LevelChoice(stop_multiple(horizon) * atr, None, "atr")
    if reference_price is not None:
        short = action is Action.SELL
        side = key_levels.resistance if short else key_levels.support
        scale = anchor_scale(horizon)
        for level in _outward(side, reference_price, above=short):
            away = abs(level - reference_price) / reference_price * 100 / atr
            if away > ANCHOR_BAND_MAX_ATR * scale:
                break
            if away >= ANCHOR_BAND_MIN_ATR * scale:
                stop = LevelChoice((away + ANCHOR_BUFFER_ATR) * atr, level, "key_level")
                break
    low, high = risk.stop_bounds(volatility)
    held = min(max(stop.distance_percent, low), high)
    return stop if held == stop.distance_percent else replace(stop, distance_percent=held, bounded=True)


def atr_take(
    action: Action,
    stop_percent: float,
    reference_price: float | None,
    key_levels: KeyLevels,
    valuation_bounds: tuple[float, ...] = (),
) -> LevelChoice:
    """``MIN_REWARD_RISK`` × the stop, or the nearest key level / valuation bound beyond it (module doc)."""
    floor = min(risk.MIN_REWARD_RISK * stop_percent, risk.MAX_TAKE_PROFIT_PERCENT)
    take = LevelChoice(floor, None, "reward_risk")
    if reference_price is None:
        return take
    short = action is Action.SELL
    sides: tuple[tuple[Sequence[float], LevelSource], ...] = (
        (key_levels.support if short else key_levels.resistance, "key_level"),
        (valuation_bounds, "valuation"),
    )
    ceiling = min(MAX_TARGET_REWARD_RISK * stop_percent, risk.MAX_TAKE_PROFIT_PERCENT)
    candidates: list[tuple[float, LevelSource, float]] = []
    for levels, source in sides:
        for level in levels:
            if (level < reference_price) if short else (level > reference_price):
                distance = abs(level - reference_price) / reference_price * 100
                if floor <= distance <= ceiling:
                    candidates.append((distance, source, level))
    if candidates:
        distance, source, level = min(candidates)
        take = LevelChoice(distance, level, source)
    return take


def _nearest(levels: Sequence[float], price: float, *, above: bool) -> float | None:
    side = [p for p in levels if (p > price if above else p < price)]
    if not side:
        return None
    return min(side) if above else max(side)


def _outward(levels: Sequence[float], price: float, *, above: bool) -> list[float]:
    """The levels on one side of the price, nearest first."""
    if above:
        return sorted(p for p in levels if p > price)
    return sorted((p for p in levels if p < price), reverse=True)
