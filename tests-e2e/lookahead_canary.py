"""A copy of the offline snapshot in which every row that was not public on day ``D`` holds absurd values.

What counts as public is written out again here from the documented rules (docs/decisions.md, "Point in
time"), not imported from the research service, so the canary checks the code against the documentation.
Each distorted row is scaled by a factor that changes from day to day, so returns and ratios change too.
"""

from __future__ import annotations

import calendar
import csv
import shutil
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

MID_MONTH = {"cpi_yoy": 15, "ppi_yoy": 15, "m2_yoy": 15, "tsf_flow": 15, "retail_sales_yoy": 20}


def _factor(day: date) -> float:
    """Between 3 and 30, different from one day to the next."""
    return 3.0 + (day.toordinal() % 17) * 1.7


def _month_end(day: date) -> date:
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def _next_month(day: date, on_day: int) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, on_day)


def macro_public_from(indicator: str, frequency: str, observed: date) -> date:
    if indicator in MID_MONTH:
        return _next_month(observed, MID_MONTH[indicator])
    if indicator.startswith("pmi_"):
        return _month_end(observed)
    if frequency == "quarterly":
        return observed + timedelta(days=20)
    return observed  # LPR fixings and month-end bond yields


def report_public_from(symbol: str, period_end: date) -> date:
    if symbol.endswith((".SH", ".SZ", ".BJ")):
        return date(period_end.year + 1, 4, 30)
    return period_end + timedelta(days=90)


def _scale(text: str, factor: float) -> str:
    return "" if text == "" else repr(float(text) * factor)


def _rewrite(path: Path, row_day: Callable[[dict[str, str]], date], numeric: list[str], on: date) -> int:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields = list(reader.fieldnames or [])
        rows = list(reader)
    changed = 0
    for row in rows:
        day = row_day(row)
        if day > on:
            factor = _factor(day)
            for name in numeric:
                row[name] = _scale(row[name], factor)
            changed += 1
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return changed


def distorted_snapshot(source: Path, target: Path, on: date) -> dict[str, int]:
    """Copy ``source`` to ``target`` and distort every row not public on ``on``; returns rows changed by kind."""
    shutil.copytree(source, target)
    changed = {"bars": 0, "financials": 0, "valuation": 0, "macro": 0}
    for path in sorted((target / "bars").glob("*.csv")):
        changed["bars"] += _rewrite(
            path,
            lambda r: date.fromisoformat(r["date"]),
            ["open", "high", "low", "close", "volume", "amount"],
            on,
        )
    for path in sorted((target / "financials").glob("*.csv")):
        symbol = path.stem
        with path.open(encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        numeric = [c for c in header if c not in ("period_end", "sources")]
        changed["financials"] += _rewrite(
            path, lambda r, s=symbol: report_public_from(s, date.fromisoformat(r["period_end"])), numeric, on
        )
    for path in sorted((target / "valuation").glob("*.csv")):
        numeric = ["close", "pe_ttm", "pe_ttm_percentile", "dividend_yield_pct", "total_mv", "roe_latest_fy_pct"]
        changed["valuation"] += _rewrite(path, lambda r: date.fromisoformat(r["as_of"][:10]), numeric, on)
    changed["macro"] = _rewrite(
        target / "macro" / "china_macro.csv",
        lambda r: macro_public_from(r["indicator"], r["frequency"], date.fromisoformat(r["date"])),
        ["value"],
        on,
    )
    return changed
