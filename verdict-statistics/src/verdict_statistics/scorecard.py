"""How a set of scored verdicts did, as plain JSON: outcomes per action, the calibration of the confidence, and
the monthly information coefficient of the verdicts' scores. The evaluation report and the coordinator's live
scorecard both use these, so their figures mean the same.

Example::

    calls = [ScoredCall("BUY", 0.7, score_trade(bars, ...)), ...]
    action_outcomes(calls, "BUY")["hit_rate"]  # {"value": 0.55, "low": 0.41, "high": 0.68, "n": 40}
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shared_contracts.scoring import TradeOutcome
from verdict_statistics.metrics import (
    MIN_SCORED_PER_MONTH,
    Brier,
    CalibrationBin,
    Estimate,
    MonthIC,
    brier,
    calibration,
    mean_ci,
    median,
    monthly_ic,
    wilson,
)

ACTIONS = ("BUY", "SELL", "HOLD")
EXIT_REASONS = ("stop", "target", "horizon")
DIGITS = 6
"""Decimal places of every float (returns, rates, ratios)."""

Json = dict[str, Any]


@dataclass(frozen=True)
class ScoredCall:
    """A verdict's action and confidence, and how it did."""

    action: str
    confidence: float | None
    outcome: TradeOutcome


def rounded(value: float | None, digits: int = DIGITS) -> float | None:
    """``value`` rounded to ``digits`` places (-0.0 becomes 0.0); None for None, NaN and infinity."""
    if value is None or not math.isfinite(value):
        return None
    return round(value, digits) + 0.0


def estimate_json(estimate: Estimate) -> Json:
    """``{"value", "low", "high", "n"}``; the bounds are null below 2 observations."""
    return {
        "value": rounded(estimate.value),
        "low": rounded(estimate.low),
        "high": rounded(estimate.high),
        "n": estimate.n,
    }


def brier_json(result: Brier) -> Json:
    """``{"score", "base_rate", "base_rate_score", "skill", "n"}``."""
    return {
        "score": rounded(result.score),
        "base_rate": rounded(result.base_rate),
        "base_rate_score": rounded(result.base_rate_score),
        "skill": rounded(result.skill),
        "n": result.n,
    }


def action_outcomes(calls: Sequence[ScoredCall], action: str) -> Json:
    """For one action: counts by scoring status (``no_fill``: the entry day opened at the daily limit), hit rate
    (BUY/SELL: the call was profitable), the call's mean (95 % CI) and median return after costs, the mean
    realised and underlying returns, exits by reason, days held."""
    rows = [c.outcome for c in calls if c.action == action]
    done = [outcome for outcome in rows if outcome.status == "scored"]
    returns = [o.call_return for o in done if o.call_return is not None]
    hits = [o.profitable for o in done if o.profitable is not None]
    exits: Counter[str] = Counter(o.exit_reason for o in done if o.exit_reason is not None)
    return {
        "count": len(rows),
        "scored": len(done),
        "pending": sum(o.status == "pending" for o in rows),
        "no_fill": sum(o.status == "no_fill" for o in rows),
        "not_scorable": sum(o.status == "not_scorable" for o in rows),
        "hit_rate": None if action == "HOLD" else estimate_json(wilson(sum(hits), len(hits))),
        "call_return": {"mean": estimate_json(mean_ci(returns)), "median": rounded(median(returns))},
        "realised_return": {"mean": estimate_json(mean_ci([o.realised_return or 0.0 for o in done]))},
        "underlying_return": {"mean": estimate_json(mean_ci([o.underlying_return or 0.0 for o in done]))},
        "exits": {reason: exits[reason] for reason in EXIT_REASONS},
        "mean_holding_days": rounded(statistics.fmean(o.holding_days for o in done)) if done else None,
    }


def bin_json(b: CalibrationBin) -> Json:
    """A reliability bin as the scorecard and the report write it."""
    return {
        "low": rounded(b.low),
        "high": rounded(b.high),
        "n": b.n,
        "mean_confidence": rounded(b.mean_confidence),
        "hit_rate": estimate_json(b.hit_rate),
    }


def calibration_section(calls: Sequence[ScoredCall]) -> Json:
    """Confidence against outcome over the scored BUY and SELL calls: decile bins (mean confidence, Wilson hit
    rate) and the Brier score next to the constant base-rate predictor's."""
    probabilities: list[float] = []
    outcomes: list[bool] = []
    for call in calls:
        profitable = call.outcome.profitable
        if call.action in ("BUY", "SELL") and call.confidence is not None and profitable is not None:
            probabilities.append(call.confidence)
            outcomes.append(profitable)
    return {
        "n": len(outcomes),
        "bins": [bin_json(b) for b in calibration(probabilities, outcomes)],
        "brier": brier_json(brier(probabilities, outcomes)),
    }


def signed_score(score: float | None, direction: str | None, debate_confidence: float | None) -> float | None:
    """The verdict's signed conviction in [-1, 1], higher = more bullish: its ``score`` when it has one, else
    the debate's confidence signed by its direction (+ BULLISH, - BEARISH, 0 NEUTRAL), the conviction the
    policies before ``score`` acted on; None when neither is known."""
    if score is not None:
        return score
    if direction == "NEUTRAL":
        return 0.0
    if direction not in ("BULLISH", "BEARISH") or debate_confidence is None:
        return None
    return debate_confidence if direction == "BULLISH" else -debate_confidence


def ic_section(observations: Sequence[tuple[str, float, float]], min_count: int = MIN_SCORED_PER_MONTH) -> Json:
    """The information coefficient of (month, score, forward return) observations: each month's cross-sectional
    Spearman IC (months with at least ``min_count`` scored stocks), their mean with a t 95 % interval over those
    months (months are the unit), and the share of months with a positive IC (Wilson)."""
    return ic_months_json(monthly_ic(observations, min_count), len(observations), min_count)


def ic_months_json(months: Sequence[MonthIC], observations: int, min_count: int = MIN_SCORED_PER_MONTH) -> Json:
    """An IC section from its months' ICs: ``min_per_month``, ``observations`` (the verdicts ranked), ``mean`` (t 95 %
    interval over the months with an IC), ``positive_months`` (Wilson) and ``months: [{month, n, ic}]``."""
    values = [m.ic for m in months if m.ic is not None]
    return {
        "min_per_month": min_count,
        "observations": observations,
        "mean": estimate_json(mean_ci(values)),
        "positive_months": estimate_json(wilson(sum(v > 0 for v in values), len(values))),
        "months": [{"month": m.month, "n": m.n, "ic": rounded(m.ic)} for m in months],
    }
