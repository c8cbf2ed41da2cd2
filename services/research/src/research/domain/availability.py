"""When each kind of data becomes public: the availability rules every expert's inputs pass through.

An analysis as of day ``D`` sees a datum only if it was public on ``D`` (after that day's close):

- a daily bar from its own date;
- an annual report from its real announcement date when the data has one, else from a conservative
  deadline: A-shares 30 April of the next year (the exchanges' legal deadline), Hong Kong 4 months and
  US 90 days after the period end;
- a valuation snapshot from its own timestamp (its calendar day);
- a macro observation from its release (``macro_release``), a documented lag per series;
- a news item from its publication.

Example: the FY2024 report of 600519.SH (period end 2024-12-31, no announcement date in the data) is
available from 2025-04-30, so a research as of 2025-04-29 uses FY2023 at the latest.
The rules and their rationale are in ``docs/decisions.md`` ("Point in time").
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta
from functools import lru_cache

A_SHARE_REPORT_DEADLINE = (4, 30)
"""Month and day of the year after the period end by which A-share annual reports must be published."""
US_REPORT_LAG_DAYS = 90
HK_REPORT_LAG_MONTHS = 4

MID_MONTH_RELEASE_DAY = {"cpi_yoy": 15, "ppi_yoy": 15, "m2_yoy": 15, "tsf_flow": 15, "retail_sales_yoy": 20}
"""Monthly series dated on the 1st of their reference month, released by this day of the next month
(CPI/PPI about the 10th, money and credit about the 12th-15th, retail sales about the 15th-18th)."""
MONTH_END_RELEASES = ("pmi_",)
"""Official PMIs are published on the last day of their reference month."""
QUARTER_RELEASE_LAG_DAYS = 20
"""Quarterly GDP, dated at the quarter end, is released 15-19 days later: 20 to be safe."""
UNKNOWN_MONTHLY_LAG = 2
"""A monthly series with no rule of its own counts as released at the end of the month after its reference
month (the later date when in doubt)."""


def month_end(day: date) -> date:
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def add_months(day: date, months: int) -> date:
    """The same day ``months`` calendar months later, clamped to the month's end (Aug 31 + 6 → Feb 28)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def bar_available_from(bar_day: date) -> date:
    return bar_day


def annual_report_available_from(
    period_end: date, *, a_share: bool, hk: bool = False, published_on: date | None = None
) -> date:
    """The day an annual report for ``period_end`` is public: its announcement date when known, else the deadline."""
    if published_on is not None:
        return published_on
    if a_share:
        month, day = A_SHARE_REPORT_DEADLINE
        return date(period_end.year + 1, month, day)
    if hk:
        return add_months(period_end, HK_REPORT_LAG_MONTHS)
    return period_end + timedelta(days=US_REPORT_LAG_DAYS)


def snapshot_available_from(timestamp: datetime) -> date:
    return timestamp.date()


@lru_cache(maxsize=65_536)
def macro_release(indicator: str, frequency: str, observed: date) -> date:
    """The day an observation of ``indicator`` dated ``observed`` is public.

    Monthly series are dated on the 1st of the reference month; quarterly ones at the quarter end; LPR on
    its fixing date and bond yields on their own date (both public that day).
    """
    if indicator in MID_MONTH_RELEASE_DAY:
        return add_months(observed, 1).replace(day=MID_MONTH_RELEASE_DAY[indicator])
    if indicator.startswith(MONTH_END_RELEASES):
        return month_end(observed)
    if frequency == "quarterly":
        return observed + timedelta(days=QUARTER_RELEASE_LAG_DAYS)
    if frequency == "monthly":
        return month_end(add_months(observed.replace(day=1), UNKNOWN_MONTHLY_LAG - 1))
    return observed  # fixing dates, month-end and daily observations


def news_available_from(published_at: datetime) -> date:
    return published_at.date()
