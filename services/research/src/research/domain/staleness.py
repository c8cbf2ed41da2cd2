"""How old an input may be on the analysis date before a result says it is stale (``staleness``).

Thresholds: the last bar more than 10 weekdays before the analysis date (no holiday calendar here: two weeks
of weekdays cover the longest exchange holidays, Spring Festival and Golden Week); the latest public annual report
for a period that ended more than 16 months before it; a valuation snapshot more than 31 days before it; a
macro series whose latest released observation is more than 100 days (monthly), 200 days (quarterly) or
45 days (fixings, month-end and daily figures) older than the analysis date.
"""

from __future__ import annotations

from datetime import date

from research.domain.availability import add_months
from shared_contracts.reference_price import REFERENCE_STALE_WEEKDAYS, weekdays_between

BARS_STALE_WEEKDAYS = REFERENCE_STALE_WEEKDAYS
"""The same limit prices a verdict (``shared_contracts.reference_price``)."""
REPORT_STALE_MONTHS = 16
VALUATION_STALE_DAYS = 31
MACRO_STALE_DAYS = {"monthly": 100, "quarterly": 200}
MACRO_STALE_DAYS_OTHER = 45


def bars_staleness(last_bar: date, on: date, source: str) -> list[str]:
    behind = weekdays_between(last_bar, on)
    if behind <= BARS_STALE_WEEKDAYS:
        return []
    return [
        f"the latest bar is {last_bar.isoformat()}, {behind} weekdays before the analysis date "
        f"{on.isoformat()}: {source} has nothing newer"
    ]


def report_staleness(period_end: date, on: date) -> list[str]:
    if add_months(period_end, REPORT_STALE_MONTHS) >= on:
        return []
    return [
        f"the latest annual report public on {on.isoformat()} is for {period_end.isoformat()}, "
        f"more than {REPORT_STALE_MONTHS} months earlier"
    ]


def valuation_staleness(snapshot_day: date, on: date) -> list[str]:
    age = (on - snapshot_day).days
    if age <= VALUATION_STALE_DAYS:
        return []
    return [f"the valuation snapshot is of {snapshot_day.isoformat()}, {age} days before {on.isoformat()}"]


def macro_staleness(latest: dict[str, tuple[str, date]], on: date) -> list[str]:
    """``latest``: indicator → (frequency, date of its latest released observation)."""
    stale = [
        f"{name} {day.isoformat()}"
        for name, (frequency, day) in sorted(latest.items())
        if (on - day).days > MACRO_STALE_DAYS.get(frequency, MACRO_STALE_DAYS_OTHER)
    ]
    return [f"macro series not updated recently on {on.isoformat()}: {', '.join(stale)}"] if stale else []
