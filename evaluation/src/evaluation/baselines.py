"""The target-weight rules the portfolio (``evaluation.portfolio.simulate``) runs: the verdicts of a
configuration, and the baselines they are compared with (an equal-weight portfolio of the whole universe and a
50/200-day moving-average crossover). Each decides at a grid date from what was public at that date's close."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Literal

from evaluation.bar_series import BarSeries
from evaluation.portfolio import TargetRule
from evaluation.records import Configuration, ResearchRecord
from shared_contracts.scoring import stale_entry

Weighting = Literal["equal", "inverse-vol"]
ExposureSource = Literal["market", "verdict", "constant"]
WEIGHTINGS: tuple[Weighting, ...] = ("equal", "inverse-vol")
EXPOSURE_SOURCES: tuple[ExposureSource, ...] = ("market", "verdict", "constant")
VOLATILITY_DAYS = 60
"""Daily returns the inverse-volatility weights are measured on (up to the grid date's close)."""
FAST, SLOW = 50, 200
"""The moving-average windows, in trading days."""


def _tradable(bars: BarSeries, day: date) -> bool:
    """The stock has a close recent enough on ``day`` to be traded after it (``stale_entry``)."""
    index = bars.last_index(day)
    return index >= 0 and stale_entry(bars.days[index], day) is None


def split_gross(
    names: Mapping[str, int], gross: float, day: date, series: Mapping[str, BarSeries], weighting: Weighting
) -> dict[str, float]:
    """``gross`` shared among ``names`` (symbol → side, 1 long, -1 short): equally, or in proportion to
    1 / volatility (a stock without enough history gets the median volatility of the others)."""
    if not names or gross <= 0:
        return {}
    if weighting == "equal":
        return {s: side * gross / len(names) for s, side in names.items()}
    vols = {s: series[s].daily_volatility(day, VOLATILITY_DAYS) for s in names}
    known = [v for v in vols.values() if v is not None and v > 0]
    fallback = statistics.median(known) if known else 1.0
    inverse = {s: 1.0 / (v if v is not None and v > 0 else fallback) for s, v in vols.items()}
    total = sum(inverse.values())
    return {s: names[s] * gross * inverse[s] / total for s in names}


def verdict_targets(
    records: Sequence[ResearchRecord],
    configuration: Configuration,
    series: Mapping[str, BarSeries],
    *,
    allow_short: bool,
    weighting: Weighting,
    exposure: ExposureSource,
    budget: float,
) -> TargetRule:
    """A configuration's verdicts as target weights: long the BUYs (short the SELLs when shorting is allowed).
    The gross exposure is the budget times the market view's share (``market``: the mean ``market_exposure`` of
    the date's verdicts, clamped to [0, 1]; the whole budget when they state none), the budget (``constant``),
    or the sum of the chosen verdicts' ``position_percent`` capped at the budget (``verdict``); split by
    ``weighting``. A verdict priced on a stale close (``stale_entry``) takes no position."""
    chosen: dict[date, dict[str, int]] = {}
    sizes: dict[date, float] = {}
    views: dict[date, list[float]] = {}
    for r in records:
        if r.configuration != configuration or r.status != "ok":
            continue
        if r.market_exposure is not None:
            views.setdefault(r.analysis_date, []).append(r.market_exposure)
        if r.action not in ("BUY", "SELL"):
            continue
        if r.action == "SELL" and not allow_short:
            continue
        if stale_entry(r.entry_day, r.analysis_date) is not None:
            continue
        chosen.setdefault(r.analysis_date, {})[r.symbol] = 1 if r.action == "BUY" else -1
        sizes[r.analysis_date] = sizes.get(r.analysis_date, 0.0) + (r.position_percent or 0.0) / 100.0

    def rule(day: date) -> dict[str, float]:
        names = chosen.get(day, {})
        if exposure == "verdict":
            gross = min(budget, sizes.get(day, 0.0))
        elif exposure == "market" and views.get(day):
            gross = budget * min(max(statistics.fmean(views[day]), 0.0), 1.0)
        else:
            gross = budget
        return split_gross(names, gross, day, series, weighting)

    return rule


def equal_weight(series: Mapping[str, BarSeries], *, budget: float) -> TargetRule:
    """The whole universe, equal weights summing to the budget: every stock that can be traded on the date."""

    def rule(day: date) -> dict[str, float]:
        names = [s for s, bars in series.items() if _tradable(bars, day)]
        return {s: budget / len(names) for s in names} if names else {}

    return rule


def ma_crossover(series: Mapping[str, BarSeries], *, budget: float) -> TargetRule:
    """An equal share of the budget per tradable stock (1/N each) for those whose 50-day simple moving average
    of the closes up to the date is above the 200-day one; none while fewer than 200 closes exist."""

    def rule(day: date) -> dict[str, float]:
        names = [s for s, bars in series.items() if _tradable(bars, day)]
        chosen = []
        for s in names:
            closes = series[s].closes_up_to(day, SLOW)
            if len(closes) == SLOW and statistics.fmean(closes[-FAST:]) > statistics.fmean(closes):
                chosen.append(s)
        return {s: budget / len(names) for s in chosen}

    return rule
