"""Cron slots on exchange trading days (croniter, exchange_calendars) and the outbox's retry delays."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime

import pytest

from coordinator.domain.exceptions import InvalidScheduleError
from coordinator.domain.model.delivery import RetryPolicy
from coordinator.domain.model.watchlist import Schedule
from coordinator.infrastructure.scheduling.cron_calendar import CronCalendar

CALENDAR = CronCalendar()
MADE = datetime(2025, 9, 1, tzinfo=UTC)


def schedule(cron: str = "0 18 * * *", **fields: object) -> Schedule:
    return Schedule("s", "w", cron, created_at=fields.pop("created_at", MADE), **fields)  # type: ignore[arg-type]


def test_the_next_slots_skip_the_national_day_holiday_in_shanghai_time() -> None:
    slots = CALENDAR.next_slots(schedule(), datetime(2025, 9, 29, 12, tzinfo=UTC), 4)
    # 18:00 Beijing is 10:00 UTC; 1-8 October 2025 is the holiday, the 11th a make-up Saturday the exchange skips
    assert slots == [
        datetime(2025, 9, 30, 10, tzinfo=UTC),
        *(datetime(2025, 10, d, 10, tzinfo=UTC) for d in (9, 10, 13)),
    ]


def test_every_day_fires_on_closed_days_when_trading_days_are_not_asked_for() -> None:
    slots = CALENDAR.next_slots(schedule(trading_days_only=False), datetime(2025, 10, 1, tzinfo=UTC), 2)
    assert slots == [datetime(2025, 10, 1, 10, tzinfo=UTC), datetime(2025, 10, 2, 10, tzinfo=UTC)]


def test_the_latest_slot_is_the_last_trading_day_s_and_never_before_the_schedule_was_made() -> None:
    during_the_holiday = datetime(2025, 10, 5, 12, tzinfo=UTC)
    assert CALENDAR.latest_slot(schedule(), during_the_holiday) == datetime(2025, 9, 30, 10, tzinfo=UTC)
    assert CALENDAR.latest_slot(schedule(created_at=datetime(2025, 10, 2, tzinfo=UTC)), during_the_holiday) is None


def test_a_schedule_made_within_a_slot_s_minute_fires_for_it() -> None:
    every_minute = schedule("* * * * *", trading_days_only=False, created_at=datetime(2026, 1, 5, 3, 7, 42, tzinfo=UTC))
    assert CALENDAR.latest_slot(every_minute, datetime(2026, 1, 5, 3, 7, 43, tzinfo=UTC)) == datetime(
        2026, 1, 5, 3, 7, tzinfo=UTC
    )


def test_a_new_york_schedule_follows_daylight_saving_time() -> None:
    close = schedule("30 16 * * 1-5", timezone="America/New_York", calendar="XNYS")
    winter, summer = (CALENDAR.next_slots(close, datetime(2025, m, 3, tzinfo=UTC), 1)[0] for m in (3, 7))
    assert (winter.hour, summer.hour) == (21, 20)


def test_beyond_the_calendar_s_range_a_weekday_is_a_trading_day() -> None:
    assert CALENDAR.last_session("XSHG", date(2031, 6, 8)) == date(2031, 6, 6)  # a Sunday: the Friday before
    assert CALENDAR.last_session("XSHG", date(2025, 10, 6)) == date(2025, 9, 30)


@pytest.mark.parametrize(
    ("cron", "timezone", "calendar", "named"),
    [
        ("0 18 * *", "Asia/Shanghai", "XSHG", "five-field"),
        ("0 25 * * *", "Asia/Shanghai", "XSHG", "five-field"),
        ("*/5 * * * * *", "Asia/Shanghai", "XSHG", "five-field"),
        ("0 18 * * *", "Asia/Beijing", "XSHG", "IANA time zone"),
        ("0 18 * * *", "Asia/Shanghai", "NOPE", "exchange calendar"),
        ("0 0 30 2 *", "Asia/Shanghai", "XSHG", "never fires"),
    ],
)
def test_a_bad_schedule_is_refused_naming_what_is_wrong(cron: str, timezone: str, calendar: str, named: str) -> None:
    with pytest.raises(InvalidScheduleError, match=named):
        CALENDAR.check(cron, timezone, calendar)


def test_the_retry_delays_double_with_jitter_and_span_about_an_hour() -> None:
    policy = RetryPolicy()
    flat = RetryPolicy(jitter=0)
    assert [flat.delay(n) for n in range(1, 6)] == [120.0, 240.0, 480.0, 960.0, 1920.0]
    assert sum(flat.delay(n) for n in range(1, policy.max_attempts)) / 60 == pytest.approx(62, abs=1)
    draws = [policy.delay(2, rand=random.Random(seed)) for seed in range(50)]
    assert min(draws) >= 180.0
    assert max(draws) <= 300.0
    assert len(set(draws)) > 40  # jittered


def test_a_longer_retry_after_is_honoured_up_to_the_cap() -> None:
    flat = RetryPolicy(jitter=0)
    assert flat.delay(1, retry_after=600) == 600
    assert flat.delay(1, retry_after=5) == 120
    assert flat.delay(1, retry_after=86_400) == 2400
