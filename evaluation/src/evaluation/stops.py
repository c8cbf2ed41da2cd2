"""How far the verdicts put their stops, in multiples of the technical analyst's ATR(14): |stop %| / 100 ×
entry close / ATR, for BUY and SELL verdicts that carry ``atr`` and ``as_of``; and the take-profit/stop ratio."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from evaluation.bar_series import BarSeries
from evaluation.records import ResearchRecord
from evaluation.samples import by_sample
from verdict_statistics.metrics import median, wilson
from verdict_statistics.quantiles import percentile
from verdict_statistics.scorecard import Json, estimate_json, rounded

ATR_BAND = (1.0, 4.0)
"""The stop distance (in ATR) counted as usual: inside it, a stop is neither noise-tight nor far away."""


@dataclass(frozen=True)
class StopDistance:
    symbol: str
    analysis_date: date
    atr_multiple: float
    target_to_stop: float | None
    """|take-profit %| / |stop %|; None when the stop is 0."""


def stop_distances(records: Sequence[ResearchRecord], series: Mapping[str, BarSeries]) -> list[StopDistance]:
    """One distance per ``ok`` BUY or SELL record with a positive ATR, an ``as_of`` and a close on or before it."""
    out = []
    for r in records:
        if r.status != "ok" or r.action not in ("BUY", "SELL") or r.stop_percent is None or r.as_of is None:
            continue
        bars = series.get(r.symbol)
        close = bars.close_on(r.as_of) if bars is not None else None
        if r.atr is None or r.atr <= 0 or close is None:
            continue
        stop = abs(r.stop_percent)
        ratio = abs(r.take_profit_percent) / stop if r.take_profit_percent is not None and stop > 0 else None
        out.append(StopDistance(r.symbol, r.analysis_date, stop / 100.0 * close / r.atr, ratio))
    return out


def _percentiles(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The 10th and 90th percentiles (linear between closest ranks); both the value itself for one value."""
    if not values:
        return None, None
    return percentile(values, 0.1), percentile(values, 0.9)


def distribution(distances: Sequence[StopDistance]) -> Json:
    """n, median, p10, p90 of the ATR multiples, the share inside ``ATR_BAND`` (Wilson), the median
    take-profit/stop ratio with its own n."""
    multiples = [d.atr_multiple for d in distances]
    ratios = [d.target_to_stop for d in distances if d.target_to_stop is not None]
    p10, p90 = _percentiles(multiples)
    inside = sum(ATR_BAND[0] <= m <= ATR_BAND[1] for m in multiples)
    return {
        "n": len(multiples),
        "median": rounded(median(multiples)),
        "p10": rounded(p10),
        "p90": rounded(p90),
        "within_band": estimate_json(wilson(inside, len(multiples))),
        "target_to_stop_median": {"value": rounded(median(ratios)), "n": len(ratios)},
    }


def stop_samples(distances: Sequence[StopDistance], split_date: date) -> Json:
    """The distribution on each sample."""
    samples = by_sample(distances, lambda d: d.analysis_date, split_date)
    return {sample: distribution(items) for sample, items in samples.items()}


def stop_by_symbol(distances: Sequence[StopDistance]) -> list[Json]:
    """The distribution per symbol over the whole period, sorted by symbol."""
    per_symbol: dict[str, list[StopDistance]] = defaultdict(list)
    for distance in distances:
        per_symbol[distance.symbol].append(distance)
    return [{"symbol": symbol, **distribution(per_symbol[symbol])} for symbol in sorted(per_symbol)]
