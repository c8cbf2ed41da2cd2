"""The statistics of verdict evaluation, each with its sample size: means with a Student-t 95 % confidence
interval, hit rates with a Wilson score interval (both from ``scipy.stats``), the Brier score against the
constant base-rate predictor (with a cluster-bootstrap interval of the skill), calibration bins, Sharpe ratio,
maximum drawdown, how often the action changes from one research to the next, and the information coefficient:
the rank correlation of scores with the returns that followed, month by month.

Example::

    mean_ci([0.02, -0.01, 0.03])  # Estimate(value=0.0133, low=-0.0384, high=0.0650, n=3)
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
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


BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the cluster bootstrap (``brier_against_constant``)."""
BOOTSTRAP_SEED = 52
"""Its generator's seed: the same calls give the same interval."""


@dataclass(frozen=True)
class BrierAgainstConstant:
    """Probabilities against the constant equal to the realised hit rate: their Brier score, the constant's
    (``rate × (1 − rate)``, the best any constant does on these calls), the excess (Brier − constant's) and the
    skill (1 − Brier / constant's), each with a percentile 95 % interval from resampling the clusters."""

    score: float | None
    rate: float | None
    constant_score: float | None
    excess: Estimate
    skill: Estimate
    n: int
    clusters: int


def brier_against_constant(
    probabilities: Sequence[float],
    outcomes: Sequence[bool],
    clusters: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> BrierAgainstConstant:
    """``probabilities`` scored against ``outcomes`` and against always predicting their realised hit rate. The
    intervals resample whole ``clusters`` (e.g. the calls' months: calls of one month move together) with
    replacement, the constant recomputed on each resample; ``Estimate.n`` is the number of clusters. No bounds
    below 2 clusters; a resample whose calls are all hits or all misses (no constant's Brier to divide by) is
    left out of the skill's interval."""
    n = len(outcomes)
    if n == 0:
        empty = Estimate(None, None, None, 0)
        return BrierAgainstConstant(None, None, None, empty, empty, 0, 0)
    names = sorted(set(clusters))
    index = {name: i for i, name in enumerate(names)}
    member = np.array([index[c] for c in clusters])
    hits = np.array(outcomes, dtype=float)
    squared = (np.array(probabilities, dtype=float) - hits) ** 2
    per_squared = np.bincount(member, weights=squared, minlength=len(names))
    per_hits = np.bincount(member, weights=hits, minlength=len(names))
    per_count = np.bincount(member, minlength=len(names)).astype(float)

    def excess_and_skill(sq: np.ndarray, hit: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rate = hit / count
        constant = rate * (1.0 - rate)
        divisor = np.where(constant > 0, constant, np.nan)
        return sq / count - constant, 1.0 - sq / count / divisor

    score = float(squared.sum() / n)
    rate = float(hits.sum() / n)
    constant = rate * (1.0 - rate)
    skill_value = 1.0 - score / constant if constant > 0 else None
    if len(names) < 2:
        excess_estimate = Estimate(score - constant, None, None, len(names))
        skill_estimate = Estimate(skill_value, None, None, len(names))
    else:
        draws = np.random.default_rng(seed).integers(0, len(names), size=(resamples, len(names)))
        excess, skill = excess_and_skill(
            per_squared[draws].sum(axis=1), per_hits[draws].sum(axis=1), per_count[draws].sum(axis=1)
        )
        excess_estimate = Estimate(score - constant, *_percentile_bounds(excess), len(names))
        skill_estimate = Estimate(skill_value, *_percentile_bounds(skill[np.isfinite(skill)]), len(names))
    return BrierAgainstConstant(score, rate, constant, excess_estimate, skill_estimate, n, len(names))


def _percentile_bounds(values: np.ndarray) -> tuple[float | None, float | None]:
    """The central ``CONFIDENCE`` interval of bootstrap draws by percentiles; (None, None) without draws."""
    if not values.size:
        return None, None
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    n: int
    mean_confidence: float | None
    hit_rate: Estimate


def equal_count_bins(probabilities: Sequence[float], outcomes: Sequence[bool], bins: int = 5) -> list[CalibrationBin]:
    """The calls sorted by probability (ties in the given order) and cut into ``bins`` groups of equal count (±1),
    each with its probability range, mean probability and hit rate; fewer groups when there are fewer calls."""
    ordered = sorted(zip(probabilities, outcomes, strict=True), key=lambda pair: pair[0])
    out = []
    for b in range(bins):
        members = ordered[b * len(ordered) // bins : (b + 1) * len(ordered) // bins]
        if members:
            out.append(
                CalibrationBin(
                    members[0][0],
                    members[-1][0],
                    len(members),
                    statistics.fmean(p for p, _ in members),
                    wilson(sum(o for _, o in members), len(members)),
                )
            )
    return out


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
