"""Relative evidence: a stock's factors, their percentiles in a reference universe on one day, and the fixed
composite score the verdict's action is decided on (docs/decisions.md, "Stock-specific composite (issue 35)").

Every factor is computed from data public on the analysis day (the bars up to it, the annual reports public
by it). A percentile is the mid-rank share of the universe's values below the stock's, in [0, 1]. The
composite turns each factor's percentile into a signed vote ``sign × (2p − 1)`` (sign +1 when a high value is
bullish, −1 when a low one is), averages the votes with the fixed weights of ``COMPOSITE`` over the factors
that have data, and reports the share of the weight that had data as its coverage.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from research.domain.analysis.numbers import rnd
from research.domain.model.market_data import AnnualFinancials, Bar

Family = Literal["technical", "valuation", "financial"]

MONTH_BARS = 20
WEEK_BARS = 5
QUARTER_BARS = 60
YEAR_BARS = 250
MIN_TURNOVER_BARS = 120
"""Abnormal turnover compares the last month's volume with the mean of at least this many days."""


@dataclass(frozen=True)
class FactorSpec:
    name: str
    family: Family
    bullish_when: Literal["high", "low"]
    weight: float
    """Its weight in the composite; 0: reported as evidence, not scored."""
    description: str


COMPOSITE: tuple[FactorSpec, ...] = (
    FactorSpec("return_1m", "technical", "low", 0.25, "20-day return (short-term reversal)"),
    FactorSpec("volatility_60d", "technical", "low", 0.20, "annualised volatility of 60 daily returns"),
    FactorSpec("abnormal_turnover", "technical", "low", 0.15, "mean volume of 20 days / of up to 250 days"),
    FactorSpec("liquidity", "technical", "low", 0.20, "log mean traded value of 20 days (size proxy)"),
    FactorSpec("return_1w", "technical", "low", 0.0, "5-day return"),
    FactorSpec("return_3m", "technical", "high", 0.0, "60-day return"),
    FactorSpec("momentum_12_1", "technical", "high", 0.0, "return from 250 to 20 days ago"),
    FactorSpec("earnings_yield", "valuation", "high", 0.10, "last annual profit / market value (EP)"),
    FactorSpec("book_yield", "valuation", "high", 0.0, "book equity / market value (BP)"),
    FactorSpec("dividend_yield", "valuation", "high", 0.05, "last DPS / close"),
    FactorSpec("roe", "financial", "high", 0.05, "return on equity of the last public annual report"),
    FactorSpec("profit_growth", "financial", "high", 0.0, "net profit growth of the last public annual report"),
    FactorSpec("revenue_growth", "financial", "high", 0.0, "revenue growth of the last public annual report"),
)
"""The registered composite (weights sum to 1), frozen before its out-of-sample run in the commit that says so;
its hash is recorded in docs/decisions.md, "Stock-specific composite (issue 35)". Not to be changed after it."""
SPECS: dict[str, FactorSpec] = {spec.name: spec for spec in COMPOSITE}
TOTAL_WEIGHT = sum(spec.weight for spec in COMPOSITE)


def _ret(close: np.ndarray, back: int, skip: int = 0) -> float | None:
    if len(close) <= back:
        return None
    old, new = close[-back - 1], close[-skip - 1]
    return float(new / old - 1.0) if old > 0 else None


def technical_factors(bars: Sequence[Bar]) -> dict[str, float | None]:
    """The technical family's factors on the last of ``bars`` (oldest first, all public on the day)."""
    close = np.array([b.close for b in bars], dtype=float)
    volume = np.array([b.volume for b in bars], dtype=float)
    factors: dict[str, float | None] = {
        "return_1w": _ret(close, WEEK_BARS),
        "return_1m": _ret(close, MONTH_BARS),
        "return_3m": _ret(close, QUARTER_BARS),
        "momentum_12_1": _ret(close, YEAR_BARS, skip=MONTH_BARS),
        "volatility_60d": None,
        "abnormal_turnover": None,
        "liquidity": None,
    }
    if len(close) > QUARTER_BARS and np.all(close[-QUARTER_BARS - 1 :] > 0):
        returns = np.diff(np.log(close[-QUARTER_BARS - 1 :]))
        factors["volatility_60d"] = float(np.std(returns, ddof=1) * math.sqrt(252.0))
    recent = volume[-MONTH_BARS:]
    if len(volume) >= MIN_TURNOVER_BARS:
        long_mean = float(volume[-YEAR_BARS:].mean())
        factors["abnormal_turnover"] = float(recent.mean()) / long_mean if long_mean > 0 else None
    if len(close) >= MONTH_BARS:
        traded = float((close[-MONTH_BARS:] * recent).mean())
        factors["liquidity"] = math.log(traded) if traded > 0 else None
    return {name: rnd(value, 6) for name, value in factors.items()}


def fundamental_factors(close: float, periods: Sequence[AnnualFinancials]) -> dict[str, float | None]:
    """The valuation and financial families' factors from the close and the annual reports public on the day
    (oldest first). Shares are implied by the last report's dividend total / DPS, so EP and BP need a dividend."""
    factors: dict[str, float | None] = dict.fromkeys(
        ("earnings_yield", "book_yield", "dividend_yield", "roe", "profit_growth", "revenue_growth")
    )
    if not periods or close <= 0:
        return factors
    last = periods[-1]
    factors["roe"] = last.roe_pct
    factors["profit_growth"] = last.net_profit_parent_yoy_pct
    factors["revenue_growth"] = last.revenue_yoy_pct
    if last.dps is not None and last.dps > 0:
        factors["dividend_yield"] = last.dps / close
        if last.dividend_total:
            market_value = close * last.dividend_total / last.dps
            if last.net_profit_parent is not None:
                factors["earnings_yield"] = last.net_profit_parent / market_value
            if last.total_assets is not None and last.total_liabilities is not None:
                factors["book_yield"] = (last.total_assets - last.total_liabilities) / market_value
    return {name: rnd(value, 6) for name, value in factors.items()}


def percentile_in(value: float, universe: Sequence[float]) -> float:
    """Mid-rank share of ``universe`` (sorted ascending) below ``value``, in [0, 1]; 0.5 for an empty one."""
    if not universe:
        return 0.5
    below, at_or_below = bisect.bisect_left(universe, value), bisect.bisect_right(universe, value)
    return round((below + 0.5 * (at_or_below - below)) / len(universe), 6)


@dataclass(frozen=True)
class Composite:
    score: float
    """Σ w·sign·(2p − 1) / Σ w over the factors with data, in [−1, 1]."""
    coverage: float
    """Σ w of the factors with data / Σ w of all factors."""
    factors_used: tuple[str, ...]


def composite(percentiles: Mapping[str, float | None]) -> Composite | None:
    """The fixed composite of a stock's factor percentiles; None when no weighted factor has data."""
    used = [s for s in COMPOSITE if s.weight > 0 and percentiles.get(s.name) is not None]
    weight = sum(s.weight for s in used)
    if weight <= 0:
        return None
    total = 0.0
    for spec in used:
        p = percentiles[spec.name]
        assert p is not None
        total += spec.weight * (1.0 if spec.bullish_when == "high" else -1.0) * (2.0 * p - 1.0)
    score = max(-1.0, min(1.0, total / weight))
    return Composite(round(score, 6), round(weight / TOTAL_WEIGHT, 6), tuple(s.name for s in used))


FAMILIES: tuple[Family, ...] = ("technical", "valuation", "financial")


@dataclass(frozen=True)
class FamilyPart:
    family: Family
    score: float | None
    """Σ w·sign·(2p − 1) / Σ w over the family's weighted factors with data; None without any."""
    weight: float
    """Σ w of the family's factors with data / Σ w of all the composite's factors with data."""
    contribution: float
    """weight × score: the family's part of the composite score (0 without data)."""


def family_parts(percentiles: Mapping[str, float | None]) -> tuple[FamilyPart, ...]:
    """The composite split by factor family, with the registered weights: the contributions sum to
    ``composite(percentiles).score`` (the composite is the weighted mean of its families' scores). Empty when
    the composite has no data."""
    used = [s for s in COMPOSITE if s.weight > 0 and percentiles.get(s.name) is not None]
    total_weight = sum(s.weight for s in used)
    if total_weight <= 0:
        return ()
    parts = []
    for family in FAMILIES:
        weight = sum(s.weight for s in used if s.family == family)
        mine = composite({s.name: percentiles.get(s.name) if s.family == family else None for s in COMPOSITE})
        if weight <= 0 or mine is None:
            parts.append(FamilyPart(family, None, 0.0, 0.0))
            continue
        share = weight / total_weight
        parts.append(FamilyPart(family, mine.score, round(share, 6), round(share * mine.score, 6)))
    return tuple(parts)
