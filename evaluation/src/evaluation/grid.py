"""The date grid the researches are made on, and the default in-sample / out-of-sample split.

``month-end``: the last calendar day of every month whose end lies in [start, end] (a weekend or holiday is
fine: the research's entry is the last close on or before it). ``week-end``: every Friday in [start, end].
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date, timedelta

GRIDS = ("month-end", "week-end")


def month_ends(start: date, end: date) -> list[date]:
    days = []
    year, month = start.year, start.month
    while (year, month) <= (end.year, end.month):
        last = date(year, month, calendar.monthrange(year, month)[1])
        if start <= last <= end:
            days.append(last)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return days


def week_ends(start: date, end: date) -> list[date]:
    friday = start + timedelta(days=(calendar.FRIDAY - start.weekday()) % 7)
    days = []
    while friday <= end:
        days.append(friday)
        friday += timedelta(days=7)
    return days


def grid_dates(kind: str, start: date, end: date) -> list[date]:
    if kind == "month-end":
        return month_ends(start, end)
    if kind == "week-end":
        return week_ends(start, end)
    raise ValueError(f"unknown grid {kind!r} (one of {', '.join(GRIDS)})")


def default_split(dates: Sequence[date], start: date, end: date) -> date:
    """The grid date nearest two thirds of the way from ``start`` to ``end`` (the earlier one on a tie)."""
    if not dates:
        raise ValueError("an empty grid has no split date")
    target = start + (end - start) * 2 / 3
    return min(dates, key=lambda day: (abs((day - target).days), day))
