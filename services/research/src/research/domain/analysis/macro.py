"""Macro indicators: the level and 6/12-month trend of each series (PMI, CPI, PPI, M2, LPR, 10-year
yield, and whatever else the provider has)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from research.domain.analysis.numbers import rnd
from research.domain.availability import add_months
from research.domain.model.market_data import MacroData, MacroSeries
from shared_contracts.errors import DataUnavailableError

CORE = ("pmi_manufacturing_nbs", "cpi_yoy", "ppi_yoy", "m2_yoy", "lpr_1y", "cgb_10y_yield")
"""The series the rules engine scores; the others are reported as context."""
TEN_YEAR_YIELDS = ("cgb_10y_yield", "ust_10y_yield")
"""Either 10-year government yield fills the ``cgb_10y_yield`` slot (China; the US Treasury via yfinance)."""
FLAT_BAND = {"pmi_manufacturing_nbs": 0.2, "pmi_non_manufacturing_nbs": 0.2}
"""A change within ±band (in the series' unit) counts as flat; 0.05 for series not listed."""
DEFAULT_FLAT_BAND = 0.05


@dataclass(frozen=True)
class SeriesSummary:
    indicator: str
    unit: str
    frequency: str
    latest: float
    latest_date: date
    change_6m: float | None
    change_12m: float | None
    trend_6m: str | None
    """``rising`` / ``falling`` / ``flat`` over about six months; None without a point that old."""
    source: str


@dataclass(frozen=True)
class MacroFacts:
    region: str
    as_of: date
    series: dict[str, SeriesSummary]
    missing_core: tuple[str, ...]
    sources: tuple[str, ...]


def _value_before(series: MacroSeries, on: date) -> float | None:
    earlier = [o.value for o in series.observations if o.date <= on]
    return earlier[-1] if earlier else None


def summarise_series(series: MacroSeries) -> SeriesSummary | None:
    if not series.observations:
        return None
    last = series.observations[-1]
    six = _value_before(series, add_months(last.date, -6))
    twelve = _value_before(series, add_months(last.date, -12))
    change_6m = rnd(last.value - six, 3) if six is not None else None
    band = FLAT_BAND.get(series.indicator, DEFAULT_FLAT_BAND)
    trend = None if change_6m is None else "rising" if change_6m > band else "falling" if change_6m < -band else "flat"
    return SeriesSummary(
        indicator=series.indicator,
        unit=series.unit,
        frequency=series.frequency,
        latest=last.value,
        latest_date=last.date,
        change_6m=change_6m,
        change_12m=rnd(last.value - twelve, 3) if twelve is not None else None,
        trend_6m=trend,
        source=series.source,
    )


def ten_year_yield(series: dict[str, SeriesSummary]) -> SeriesSummary | None:
    return next((series[name] for name in TEN_YEAR_YIELDS if name in series), None)


def compute_macro_facts(data: MacroData) -> MacroFacts:
    summaries = {name: s for name, series in sorted(data.series.items()) if (s := summarise_series(series))}
    has_yield = ten_year_yield(summaries) is not None
    missing = tuple(n for n in CORE if n not in summaries and not (n == "cgb_10y_yield" and has_yield))
    present = [s for name, s in summaries.items() if name in CORE or name in TEN_YEAR_YIELDS]
    if not present:
        raise DataUnavailableError(f"no macro series for region {data.region} (needs one of {', '.join(CORE)})")
    return MacroFacts(
        region=data.region,
        as_of=max(s.latest_date for s in present),
        series=summaries,
        missing_core=missing,
        sources=tuple(sorted({s.source for s in summaries.values()})),
    )
