"""Read the offline snapshot's CSV files (layout in ``snapshot/SOURCES.md``) into domain objects."""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import fields
from datetime import date, datetime
from pathlib import Path

from research.domain.model.market_data import AnnualFinancials, Bar, MacroObservation, MacroSeries, ValuationSnapshot

BARS_SOURCE = {
    "AAPL": "2404Shiv/systematic-trading-gapfade (adjusted daily bars)",
    "MSFT": "2404Shiv/systematic-trading-gapfade (adjusted daily bars)",
}
DEFAULT_BARS_SOURCE = "Tushare pro_bar qfq daily bars via SebastienZh/StockTradebyZ"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _num(text: str | None) -> float | None:
    return float(text) if text not in (None, "") else None


def read_bars(path: Path) -> tuple[Bar, ...]:
    bars = []
    for r in _rows(path):
        o, h, lo, c, volume = (float(r[f]) for f in ("open", "high", "low", "close", "volume"))
        bars.append(Bar(date.fromisoformat(r["date"]), o, h, lo, c, volume, _num(r.get("amount"))))
    return tuple(sorted(bars, key=lambda b: b.date))


_FIN_FIELDS = [f.name for f in fields(AnnualFinancials) if f.name not in ("period_end", "published_on")]
"""Every figure of an annual report, as the financials CSV names its columns."""


def read_financials(path: Path) -> tuple[tuple[AnnualFinancials, ...], tuple[str, ...]]:
    """Annual periods oldest first, and the distinct upstream source tags of the rows."""
    rows = _rows(path)
    periods = [
        AnnualFinancials(
            period_end=date.fromisoformat(r["period_end"]),
            published_on=date.fromisoformat(r["published_on"]) if r.get("published_on") else None,
            **{f: _num(r[f]) for f in _FIN_FIELDS},
        )
        for r in rows
    ]
    tags = sorted({tag for r in rows for tag in r.get("sources", "").split(";") if tag})
    return tuple(sorted(periods, key=lambda p: p.period_end)), tuple(tags)


_VALUATION_FIELDS = ("close", "pe_ttm", "pe_ttm_percentile", "dividend_yield_pct", "total_mv", "roe_latest_fy_pct")


def read_valuation(path: Path) -> tuple[ValuationSnapshot, ...]:
    snapshots = [
        ValuationSnapshot(
            as_of=datetime.fromisoformat(r["as_of"].replace("Z", "+00:00")),
            source=r["source"],
            roe_fy=int(r["roe_fy"]) if r["roe_fy"] else None,
            **{f: _num(r[f]) for f in _VALUATION_FIELDS},
        )
        for r in _rows(path)
    ]
    return tuple(sorted(snapshots, key=lambda s: s.as_of))


def read_macro(path: Path, source: str) -> dict[str, MacroSeries]:
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in _rows(path):
        grouped[r["indicator"]].append(r)
    series = {}
    for name, rows in grouped.items():
        observations = sorted(
            (MacroObservation(date.fromisoformat(r["date"]), float(r["value"])) for r in rows if r["value"]),
            key=lambda o: o.date,
        )
        series[name] = MacroSeries(
            indicator=name,
            unit=rows[0]["unit"],
            frequency=rows[0]["frequency"],
            observations=tuple(observations),
            source=f"{source} ({rows[0]['source_series_id']})",
        )
    return series
