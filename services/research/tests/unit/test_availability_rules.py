"""Each availability rule at its boundary: the day before publication (not public) and the day of it (public)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from research.domain import availability as rules
from research.domain import staleness
from shared_contracts.reference_price import weekdays_between


def test_a_bar_is_public_from_its_own_day() -> None:
    assert rules.bar_available_from(date(2025, 9, 30)) == date(2025, 9, 30)


@pytest.mark.parametrize(
    ("period_end", "kwargs", "public_from"),
    [
        (date(2024, 12, 31), {"a_share": True}, date(2025, 4, 30)),  # the exchanges' deadline
        (date(2024, 12, 31), {"a_share": True, "published_on": date(2025, 3, 28)}, date(2025, 3, 28)),
        (date(2024, 9, 28), {"a_share": False}, date(2024, 12, 27)),  # US: 90 days after the period end
        (date(2024, 12, 31), {"a_share": False, "hk": True}, date(2025, 4, 30)),  # HK: 4 months
        (date(2024, 6, 30), {"a_share": False, "hk": True}, date(2024, 10, 30)),
    ],
)
def test_an_annual_report_is_public_from_its_announcement_or_deadline(
    period_end: date, kwargs: dict[str, object], public_from: date
) -> None:
    assert rules.annual_report_available_from(period_end, **kwargs) == public_from  # type: ignore[arg-type]


def test_a_valuation_snapshot_is_public_from_its_timestamps_day() -> None:
    assert rules.snapshot_available_from(datetime(2026, 6, 13, 18, 39, tzinfo=UTC)) == date(2026, 6, 13)
    beijing = timezone(timedelta(hours=8))
    assert rules.snapshot_available_from(datetime(2026, 6, 14, 15, 58, tzinfo=beijing)) == date(2026, 6, 14)


@pytest.mark.parametrize(
    ("indicator", "frequency", "observed", "released"),
    [
        ("cpi_yoy", "monthly", date(2025, 8, 1), date(2025, 9, 15)),
        ("ppi_yoy", "monthly", date(2025, 12, 1), date(2026, 1, 15)),  # across the year end
        ("m2_yoy", "monthly", date(2025, 8, 1), date(2025, 9, 15)),
        ("tsf_flow", "monthly", date(2025, 8, 1), date(2025, 9, 15)),
        ("retail_sales_yoy", "monthly", date(2025, 8, 1), date(2025, 9, 20)),
        ("pmi_manufacturing_nbs", "monthly", date(2025, 9, 1), date(2025, 9, 30)),
        ("pmi_non_manufacturing_nbs", "monthly", date(2024, 2, 1), date(2024, 2, 29)),
        ("lpr_1y", "fixing_date", date(2025, 9, 22), date(2025, 9, 22)),
        ("cgb_10y_yield", "month_end", date(2025, 9, 30), date(2025, 9, 30)),
        ("gdp_real_yoy", "quarterly", date(2025, 6, 30), date(2025, 7, 20)),
        ("some_new_series", "monthly", date(2025, 8, 1), date(2025, 9, 30)),  # unknown: end of the next month
        ("ust_10y_yield", "daily", date(2025, 8, 1), date(2025, 8, 1)),
    ],
)
def test_each_macro_series_is_public_from_its_release(
    indicator: str, frequency: str, observed: date, released: date
) -> None:
    assert rules.macro_release(indicator, frequency, observed) == released


def test_news_is_public_from_its_publication_day() -> None:
    assert rules.news_available_from(datetime(2025, 9, 30, 23, 59, tzinfo=UTC)) == date(2025, 9, 30)


def test_weekdays_between_counts_the_days_after_the_first() -> None:
    assert weekdays_between(date(2025, 9, 26), date(2025, 9, 29)) == 1  # Friday → Monday
    assert weekdays_between(date(2025, 9, 30), date(2025, 9, 30)) == 0
    assert weekdays_between(date(2025, 9, 30), date(2025, 9, 1)) == 0
    assert weekdays_between(date(2025, 9, 30), date.max) > 2_000_000  # the last day there is


def test_staleness_thresholds_at_their_boundaries() -> None:
    last = date(2025, 9, 30)  # Tuesday
    assert staleness.bars_staleness(last, date(2025, 10, 14), "x") == []  # 10 weekdays
    assert staleness.bars_staleness(last, date(2025, 10, 15), "x") != []  # 11
    assert staleness.report_staleness(date(2024, 12, 31), date(2026, 4, 30)) == []  # 16 months
    assert staleness.report_staleness(date(2024, 12, 31), date(2026, 5, 1)) != []
    assert staleness.valuation_staleness(date(2025, 9, 1), date(2025, 10, 2)) == []  # 31 days
    assert staleness.valuation_staleness(date(2025, 9, 1), date(2025, 10, 3)) != []
    monthly = {"cpi_yoy": ("monthly", date(2025, 6, 1))}
    assert staleness.macro_staleness(monthly, date(2025, 9, 9)) == []  # 100 days
    assert staleness.macro_staleness(monthly, date(2025, 9, 10)) == [
        "macro series not updated recently on 2025-09-10: cpi_yoy 2025-06-01"
    ]


def test_add_months_clamps_to_the_months_end_both_ways() -> None:
    assert rules.add_months(date(2025, 8, 31), 6) == date(2026, 2, 28)
    assert rules.add_months(date(2025, 8, 31), -6) == date(2025, 2, 28)  # the macro trends look back with it
    assert rules.add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)
    assert rules.add_months(date(2025, 1, 15), -12) == date(2024, 1, 15)
