"""The date grid and the default split."""

from __future__ import annotations

from datetime import date

import pytest

from evaluation.grid import default_split, grid_dates, month_ends, week_ends


def test_month_ends_are_the_calendar_month_ends_inside_the_range() -> None:
    days = month_ends(date(2020, 1, 2), date(2020, 5, 15))
    assert days == [date(2020, 1, 31), date(2020, 2, 29), date(2020, 3, 31), date(2020, 4, 30)]


def test_month_ends_include_both_bounds_and_cross_years() -> None:
    assert month_ends(date(2024, 11, 30), date(2025, 1, 31)) == [
        date(2024, 11, 30),
        date(2024, 12, 31),
        date(2025, 1, 31),
    ]
    assert month_ends(date(2024, 3, 1), date(2024, 3, 30)) == []


def test_the_default_universe_range_has_69_month_ends() -> None:
    days = grid_dates("month-end", date(2020, 1, 2), date(2025, 9, 30))
    assert (days[0], days[-1], len(days)) == (date(2020, 1, 31), date(2025, 9, 30), 69)


def test_week_ends_are_the_fridays_inside_the_range() -> None:
    days = week_ends(date(2024, 6, 1), date(2024, 6, 28))  # a Saturday to a Friday
    assert days == [date(2024, 6, 7), date(2024, 6, 14), date(2024, 6, 21), date(2024, 6, 28)]
    assert all(day.weekday() == 4 for day in days)
    assert week_ends(date(2024, 6, 7), date(2024, 6, 7)) == [date(2024, 6, 7)]


def test_an_unknown_grid_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown grid"):
        grid_dates("daily", date(2024, 1, 1), date(2024, 2, 1))


def test_the_default_split_is_the_grid_date_nearest_two_thirds_of_the_range() -> None:
    start, end = date(2020, 1, 2), date(2025, 9, 30)
    days = month_ends(start, end)
    # two thirds of 2020-01-02 → 2025-09-30 is 2023-10-31 (+ a few hours): the grid has it
    assert default_split(days, start, end) == date(2023, 10, 31)
    months = [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31)]
    assert default_split(months, date(2024, 1, 1), date(2024, 4, 1)) == date(2024, 2, 29)  # target 2024-03-01
    # a tie (30 days either side of 2024-03-01) goes to the earlier date
    assert default_split([months[0], months[2]], date(2024, 1, 1), date(2024, 4, 1)) == date(2024, 1, 31)
    with pytest.raises(ValueError, match="empty grid"):
        default_split([], start, end)
