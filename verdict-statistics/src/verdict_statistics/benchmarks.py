"""Is the score more than a size tilt? The score's monthly IC beside that of the simplest factor that could
explain it: −log of the stock's mean traded value over the 20 bars up to its entry day (small, illiquid stocks
ranked first), on the same (symbol, month) cells and against the same forward return; their difference paired by
month; and the IC of what is left of the score once each month's log traded value is regressed out. The
evaluation report and the coordinator's live scorecard both use these, so their figures mean the same.

Example::

    cells = [RankedCell("2024-06", score, forward.value, log_traded_value(bars, entry_day)), ...]
    liquidity_benchmark(cells)["paired_difference"]  # {"value": -0.02, "low": -0.09, "high": 0.05, "n": 23}
    size_neutral_ic(cells)["mean"]                    # the residual score's IC, mean over months
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from shared_contracts.scoring import DailyBar
from verdict_statistics.metrics import MIN_SCORED_PER_MONTH, Estimate, MonthIC, mean_ci, monthly_ic, spearman_ic
from verdict_statistics.scorecard import Json, estimate_json, ic_months_json

LIQUIDITY_BARS = 20
"""Bars of traded value averaged: the entry day's and the 19 before it (the composite's own liquidity factor)."""
LIQUIDITY_FACTOR = "-log(mean close × volume of the 20 bars up to and including the entry day)"
MIN_PAIRED_MONTHS = 2
"""Months with both ICs needed for an interval of their difference."""
NIL_RESIDUAL = 1e-9
"""A month's residual score smaller than this share of the score's own spread is nil: the score is a linear
function of log traded value there, and what is left of it ranks nothing (IC 0)."""


def log_traded_value(bars: Sequence[DailyBar], day: date, window: int = LIQUIDITY_BARS) -> float | None:
    """The log of the mean traded value (close × volume) of the ``window`` bars up to and including the last bar on
    or before ``day`` (``bars`` oldest first; none after ``day`` is read); None with fewer bars, a bar without its
    volume, or nothing traded."""
    end = bisect.bisect_right(bars, day, key=lambda bar: bar.day)
    traded = [bar.close * bar.volume for bar in bars[max(end - window, 0) : end] if bar.volume is not None]
    if len(traded) < window:
        return None
    mean = statistics.fmean(traded)
    return math.log(mean) if mean > 0 and math.isfinite(mean) else None


@dataclass(frozen=True)
class RankedCell:
    """One ranked verdict: its cross-section (``month``), score, forward return and log traded value (None when
    its 20 bars of volume up to the entry day are not known)."""

    month: str
    score: float
    forward: float
    log_liquidity: float | None


def _known(cells: Sequence[RankedCell]) -> list[tuple[str, float, float, float]]:
    return [(c.month, c.score, c.forward, c.log_liquidity) for c in cells if c.log_liquidity is not None]


def paired_difference(first: Sequence[MonthIC], second: Sequence[MonthIC]) -> Estimate:
    """The mean over the months where both have an IC of ``first``'s minus ``second``'s, with its t 95 % interval
    (n = those months)."""
    others = {m.month: m.ic for m in second if m.ic is not None}
    return mean_ci([m.ic - others[m.month] for m in first if m.ic is not None and m.month in others])


def tilt_statement(difference: Estimate) -> str:
    """What the paired difference of the score's IC and the liquidity factor's says, in one sentence."""
    if difference.low is None or difference.high is None:
        return "Too few months to tell the score from a size/liquidity tilt."
    if difference.low > 0:
        return "The score ranks better than a size/liquidity tilt alone: the paired interval lies above 0."
    if difference.high < 0:
        return "The score ranks worse than a size/liquidity tilt alone: the paired interval lies below 0."
    return (
        "The score is not distinguishable from a size/liquidity tilt: its IC minus that of −log(20-day traded "
        "value), paired by month, has a 95 % interval that includes 0."
    )


def liquidity_benchmark(cells: Sequence[RankedCell], min_count: int = MIN_SCORED_PER_MONTH) -> Json:
    """The monthly IC of −log traded value on the cells whose liquidity is known (the IC section's keys), the
    score's mean IC on those same cells (``score_mean``), the score's minus the factor's IC paired by month
    (``paired_difference``) and what that says (``statement``); ``without_liquidity``: ranked cells left out."""
    known = _known(cells)
    factor = monthly_ic([(month, -liquidity, forward) for month, _, forward, liquidity in known], min_count)
    score = monthly_ic([(month, value, forward) for month, value, forward, _ in known], min_count)
    difference = paired_difference(score, factor)
    return {
        **ic_months_json(factor, len(known), min_count),
        "factor": LIQUIDITY_FACTOR,
        "window_bars": LIQUIDITY_BARS,
        "without_liquidity": len(cells) - len(known),
        "score_mean": estimate_json(mean_ci([m.ic for m in score if m.ic is not None])),
        "paired_difference": estimate_json(difference),
        "statement": tilt_statement(difference),
    }


def _residuals(scores: Sequence[float], liquidity: Sequence[float]) -> list[float] | None:
    """The OLS residuals of ``scores`` on ``liquidity`` (with an intercept); None when they are nil."""
    try:
        slope, intercept = statistics.linear_regression(liquidity, scores)
    except statistics.StatisticsError:  # liquidity does not vary: nothing to regress out
        slope, intercept = 0.0, statistics.fmean(scores)
    residuals = [s - (intercept + slope * x) for s, x in zip(scores, liquidity, strict=True)]
    spread = max(abs(s - statistics.fmean(scores)) for s in scores)
    return None if max(abs(r) for r in residuals) <= NIL_RESIDUAL * spread else residuals


def _size_neutral_month(month: str, rows: Sequence[tuple[float, float, float]], min_count: int) -> MonthIC:
    scores, forwards, liquidity = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    if len(rows) < min_count or len(set(scores)) < 2 or len(set(forwards)) < 2:
        return MonthIC(month, len(rows), None)
    residuals = _residuals(scores, liquidity)
    return MonthIC(month, len(rows), 0.0 if residuals is None else spearman_ic(residuals, forwards))


def size_neutral_ic(cells: Sequence[RankedCell], min_count: int = MIN_SCORED_PER_MONTH) -> Json:
    """The IC section (same keys) of the score residualised on log traded value within each month: per month the
    OLS residual of score on log liquidity, ranked against the forward return (Spearman). A month whose score
    does not vary has no IC, as in the score's own; one whose residual is nil (the score is a linear function of
    log liquidity) has IC 0."""
    by_month: dict[str, list[tuple[float, float, float]]] = {}
    known = _known(cells)
    for month, score, forward, liquidity in known:
        by_month.setdefault(month, []).append((score, forward, liquidity))
    months = [_size_neutral_month(month, by_month[month], min_count) for month in sorted(by_month)]
    return ic_months_json(months, len(known), min_count)


def too_few_months(liquidity: Json) -> str | None:
    """Why ``liquidity_benchmark``'s figures cannot be compared (fewer than ``MIN_PAIRED_MONTHS`` months with both
    ICs), or None when they can."""
    paired = liquidity["paired_difference"]["n"]
    if paired >= MIN_PAIRED_MONTHS:
        return None
    return (
        f"too few months: {paired} month(s) with at least {liquidity['min_per_month']} ranked verdicts whose "
        f"{LIQUIDITY_BARS} bars of traded value up to the entry day are known, {MIN_PAIRED_MONTHS} needed for an "
        f"interval ({liquidity['observations']} such verdicts, {liquidity['without_liquidity']} without them)"
    )
