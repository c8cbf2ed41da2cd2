"""When a close can price a verdict: the rule the coordinator applies when it picks the judge's reference price,
and the judge names when it has none.

A close prices a research of ``analysis_date`` when it is of that day or at most ``REFERENCE_STALE_WEEKDAYS``
weekdays before it (the research service's bars staleness limit: two weeks of weekdays cover the longest exchange
holidays), and never after it. Without such a close, or without a volatility measure, a verdict cannot set its
stop or its size: it is a HOLD (services/judge/README.md, "No action without a price")."""

from __future__ import annotations

from datetime import date, timedelta

REFERENCE_STALE_WEEKDAYS = 10


def weekdays_between(earlier: date, later: date) -> int:
    """Weekdays after ``earlier`` up to and including ``later`` (0 when ``later`` is not after ``earlier``)."""
    if later <= earlier:
        return 0
    full_weeks, rest = divmod((later - earlier).days, 7)
    count = full_weeks * 5
    day = earlier + timedelta(days=full_weeks * 7)
    for _ in range(rest):
        day += timedelta(days=1)
        count += day.weekday() < 5
    return count


def prices_the_date(close_day: date, analysis_date: date) -> bool:
    """Whether a close of ``close_day`` may price a research of ``analysis_date`` (module doc)."""
    return close_day <= analysis_date and weekdays_between(close_day, analysis_date) <= REFERENCE_STALE_WEEKDAYS
