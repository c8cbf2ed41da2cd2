"""Read the offline snapshot's CSV files (layout in ``snapshot/SOURCES.md``) into domain objects."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import date, datetime
from pathlib import Path

from research.domain.model.market_data import (
    AnnualFinancials,
    Bar,
    MacroObservation,
    MacroSeries,
    ValuationSnapshot,
)

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
    bars = [
        Bar(
            date=date.fromisoformat(r["date"]),
            open=float(r["open"]),
            high=float(r["high"]),
            low=float(r["low"]),
            close=float(r["close"]),
            volume=float(r["volume"]),
            amount=_num(r.get("amount")),
        )
        for r in _rows(path)
    ]
    return tuple(sorted(bars, key=lambda b: b.date))


_FIN_FIELDS = [
    "revenue",
    "net_profit_parent",
    "net_profit_total",
    "revenue_yoy_pct",
    "net_profit_parent_yoy_pct",
    "roe_pct",
    "gross_margin_pct",
    "net_margin_pct",
    "operating_cash_flow",
    "total_assets",
    "total_liabilities",
    "accounts_receivable",
    "inventory",
    "dps",
    "dividend_total",
    "payout_ratio_pct",
    "year_end_close",
]


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


def _timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def read_valuation(path: Path) -> tuple[ValuationSnapshot, ...]:
    snapshots = [
        ValuationSnapshot(
            as_of=_timestamp(r["as_of"]),
            source=r["source"],
            close=_num(r["close"]),
            pe_ttm=_num(r["pe_ttm"]),
            pe_ttm_percentile=_num(r["pe_ttm_percentile"]),
            dividend_yield_pct=_num(r["dividend_yield_pct"]),
            total_mv=_num(r["total_mv"]),
            roe_latest_fy_pct=_num(r["roe_latest_fy_pct"]),
            roe_fy=int(r["roe_fy"]) if r["roe_fy"] else None,
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
