"""The statistics of verdict evaluation, each with its sample size: means with a Student-t 95 % confidence
interval, hit rates with a Wilson score interval (both from ``scipy.stats``), the Brier score against the
constant base-rate predictor, calibration bins, Sharpe ratio, maximum drawdown, how often the action changes
from one research to the next, and the information coefficient: the rank correlation of scores with the
returns that followed, month by month.

Example::

    mean_ci([0.02, -0.01, 0.03])  # Estimate(value=0.0133, low=-0.0384, high=0.0650, n=3)
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

CONFIDENCE = 0.95
"""The two-sided coverage of every interval."""


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None
    high: float | None
    n: int

    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly above or below 0 (a claim of an edge needs this)."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def mean_ci(values: Sequence[float]) -> Estimate:
    """The mean with its Student-t 95 % interval (exact quantile for n - 1 degrees of freedom, sample standard
    deviation); None bounds for fewer than 2 values."""
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    mean = statistics.fmean(values)
    if n < 2:
        return Estimate(mean, None, None, 1)
    spread = statistics.stdev(values)
    if spread == 0:
        return Estimate(mean, mean, mean, n)
    low, high = stats.t.interval(CONFIDENCE, n - 1, loc=mean, scale=spread / math.sqrt(n))
    return Estimate(mean, float(low), float(high), n)


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def wilson(successes: int, n: int) -> Estimate:
    """A proportion with its Wilson score 95 % interval (no continuity correction)."""
    if n == 0:
        return Estimate(None, None, None, 0)
    interval = stats.binomtest(successes, n).proportion_ci(CONFIDENCE, method="wilson")
    return Estimate(successes / n, float(interval.low), float(interval.high), n)


@dataclass(frozen=True)
class Brier:
    score: float | None
    base_rate: float | None
    base_rate_score: float | None
    """The Brier score of always predicting the base rate (the observed frequency)."""
    n: int

    @property
    def skill(self) -> float | None:
        """1 - score / base-rate score: above 0 beats the constant predictor."""
        if self.score is None or not self.base_rate_score:
            return None
        return 1.0 - self.score / self.base_rate_score


def brier(probabilities: Sequence[float], outcomes: Sequence[bool]) -> Brier:
    n = len(outcomes)
    if n == 0:
        return Brier(None, None, None, 0)
    score = statistics.fmean((p - float(o)) ** 2 for p, o in zip(probabilities, outcomes, strict=True))
    rate = sum(outcomes) / n
    return Brier(score, rate, rate * (1 - rate), n)


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    n: int
    mean_confidence: float | None
    hit_rate: Estimate


def calibration(probabilities: Sequence[float], outcomes: Sequence[bool], bins: int = 10) -> list[CalibrationBin]:
    """Confidence deciles (equal-width bins over [0, 1]) against the realised hit rate."""
    out = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [
            (p, o)
            for p, o in zip(probabilities, outcomes, strict=True)
            if low <= p < high or (b == bins - 1 and p == 1)
        ]
        out.append(
            CalibrationBin(
                low,
                high,
                len(members),
                statistics.fmean(p for p, _ in members) if members else None,
                wilson(sum(o for _, o in members), len(members)),
            )
        )
    return out


def sharpe(period_returns: Sequence[float], periods_per_year: int = 12) -> float | None:
    """Annualised Sharpe ratio of period returns (risk-free 0); None when undefined."""
    if len(period_returns) < 2:
        return None
    spread = statistics.stdev(period_returns)
    return None if spread == 0 else statistics.fmean(period_returns) / spread * math.sqrt(periods_per_year)


def equity_curve(period_returns: Sequence[float], start: float = 1.0) -> list[float]:
    curve = [start]
    for r in period_returns:
        curve.append(curve[-1] * (1.0 + r))
    return curve


def max_drawdown(curve: Sequence[float]) -> float:
    """The largest fall from a peak, as a negative fraction (0 when the curve never falls)."""
    peak, worst = -math.inf, 0.0
    for value in curve:
        peak = max(peak, value)
        if peak > 0:
            worst = min(worst, value / peak - 1.0)
    return worst


def flip_rate(actions_by_symbol: dict[str, Sequence[str]]) -> Estimate:
    """The share of consecutive research pairs (per symbol, in date order) whose action differs."""
    pairs = [(a, b) for actions in actions_by_symbol.values() for a, b in itertools.pairwise(actions)]
    return wilson(sum(a != b for a, b in pairs), len(pairs))


MIN_SCORED_PER_MONTH = 10
"""A month's information coefficient is computed from at least this many scored stocks."""


def spearman_ic(scores: Sequence[float], returns: Sequence[float]) -> float | None:
    """Spearman's rank correlation of ``scores`` with ``returns`` (ties get their average rank); None below 3
    pairs or when either side is constant."""
    if len(scores) < 3 or len(set(scores)) < 2 or len(set(returns)) < 2:
        return None
    rho = float(stats.spearmanr(scores, returns).statistic)
    return rho if math.isfinite(rho) else None


@dataclass(frozen=True)
class MonthIC:
    month: str
    """``YYYY-MM``, or whatever key groups one cross-section."""
    n: int
    """Scored stocks in the cross-section."""
    ic: float | None
    """None with fewer than the minimum of stocks, or when the scores (or returns) do not vary."""


def monthly_ic(
    observations: Sequence[tuple[str, float, float]], min_count: int = MIN_SCORED_PER_MONTH
) -> list[MonthIC]:
    """The cross-sectional Spearman IC of each month's (month, score, return) observations, months sorted."""
    by_month: dict[str, list[tuple[float, float]]] = {}
    for month, score, value in observations:
        by_month.setdefault(month, []).append((score, value))
    out = []
    for month in sorted(by_month):
        pairs = by_month[month]
        ic = spearman_ic([s for s, _ in pairs], [r for _, r in pairs]) if len(pairs) >= min_count else None
        out.append(MonthIC(month, len(pairs), ic))
    return out
