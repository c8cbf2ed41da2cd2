"""The rules engine's numbers: thresholds and formulas (README "Rules engine" restates them).

action     BUY if BULLISH and confidence >= 0.60; SELL if BEARISH and confidence >= 0.60; else HOLD.
position   (BUY/SELL) max × clip((confidence − 0.50) / 0.50, 0, 1) × (1 − min(0.10 × risks, 0.50)),
           rounded down to 0.5 %, at least 0.5 % (or max, if smaller); HOLD → 0.
risk level LOW for 0-1 named risk factors, MEDIUM for 2-3, HIGH for 4+.
stop/take  by risk level: LOW 8 % / 20 %, MEDIUM 6 % / 15 %, HIGH 5 % / 10 % from entry — more named
           risks, cut losses and take profits sooner. With a reference price and key levels the stop
           moves to 1 % beyond the nearest support (long) / resistance (short) when that lies 2 %…2×stop
           away, and the take-profit to the nearest resistance (long) / support (short) when that lies
           between 1×stop (reward ≥ risk) and 3×take away.
horizon    HOLD → SHORT_TERM (revisit soon); 3+ open disagreements or HIGH risk → SHORT_TERM;
           confidence >= 0.80 with LOW risk → LONG_TERM; otherwise MEDIUM_TERM.
confidence the debate's confidence × (1 − 0.05 × min(open disagreements, 4)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.domain.dtos.judge_input import KeyLevels
from judge.domain.model.enums import Action, Direction, RiskLevel, TimeHorizon

ACTION_THRESHOLD = 0.60
SIZING_FLOOR = 0.50
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


def horizon(action: Action, confidence: float, level: RiskLevel, disagreements: int) -> TimeHorizon:
    if action is Action.HOLD or disagreements >= CONTESTED_DISAGREEMENTS or level is RiskLevel.HIGH:
        return TimeHorizon.SHORT_TERM
    if confidence >= LONG_TERM_CONFIDENCE and level is RiskLevel.LOW:
        return TimeHorizon.LONG_TERM
    return TimeHorizon.MEDIUM_TERM


def verdict_confidence(confidence: float, disagreements: int) -> float:
    discount = DISAGREEMENT_DISCOUNT * min(disagreements, MAX_DISAGREEMENT_DISCOUNTS)
    return round(confidence * (1.0 - discount), 4)


@dataclass(frozen=True)
class LevelChoice:
    distance_percent: float
    anchor: float | None
    """The key level the distance was taken from; None when it is the risk level's percentage."""


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
            stop = LevelChoice(distance, stop_anchor)
    take_anchor = _nearest(take_side, reference_price, above=not short)
    if take_anchor is not None:
        distance = abs(take_anchor - reference_price) / reference_price * 100
        if stop.distance_percent <= distance <= 3 * base_take:
            take = LevelChoice(distance, take_anchor)
    return stop, take


def _nearest(levels: tuple[float, ...], price: float, *, above: bool) -> float | None:
    side = [p for p in levels if (p > price if above else p < price)]
    if not side:
        return None
    return min(side) if above else max(side)
