"""``IScheduleCalendar`` with croniter (five-field cron, read in the schedule's IANA time zone) and
exchange_calendars (an exchange's trading days; outside the range a calendar knows, Monday to Friday).

exchange_calendars is imported on first use: a coordinator without schedules never pays for loading it.
"""

from __future__ import annotations

import functools
import warnings
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadDateError, croniter

from coordinator.domain.exceptions import InvalidScheduleError
from coordinator.domain.model.watchlist import Schedule
from coordinator.domain.ports.schedule_calendar import IScheduleCalendar

MAX_DAYS_SKIPPED = 400
"""How many closed days a search for a trading-day slot steps over before it gives up."""


class CronCalendar(IScheduleCalendar):
    def check(self, cron: str, timezone: str, calendar: str) -> None:
        if len(cron.split()) != 5 or not croniter.is_valid(cron):
            raise InvalidScheduleError(
                f"cron {cron!r} is not a five-field cron expression (minute hour day month weekday, e.g. "
                "'0 18 * * 1-5': 18:00 on weekdays)"
            )
        try:
            croniter(cron, datetime.now(_zone(timezone))).get_next(datetime)
        except CroniterBadDateError:
            raise InvalidScheduleError(f"cron {cron!r} never fires (no such day, e.g. 30 February)") from None
        if calendar not in _calendar_names():
            raise InvalidScheduleError(
                f"calendar {calendar!r} is not an exchange calendar (e.g. XSHG Shanghai, XHKG Hong Kong, XNYS New York)"
            )

    def latest_slot(self, schedule: Schedule, now: datetime) -> datetime | None:
        zone = _zone(schedule.timezone)
        cursor = now.astimezone(zone)
        for _ in range(MAX_DAYS_SKIPPED):
            try:
                slot = croniter(schedule.cron, cursor).get_prev(datetime)
            except CroniterBadDateError:
                return None
            if slot < schedule.created_at.astimezone(zone).replace(second=0, microsecond=0):
                return None
            if not schedule.trading_days_only or _is_session(schedule.calendar, slot.date()):
                return slot.astimezone(UTC)
            cursor = datetime.combine(slot.date(), time(0), zone)  # the day before's slots
        return None

    def next_slots(self, schedule: Schedule, now: datetime, count: int) -> list[datetime]:
        zone = _zone(schedule.timezone)
        cursor = now.astimezone(zone)
        found: list[datetime] = []
        for _ in range(MAX_DAYS_SKIPPED + count):
            if len(found) == count:
                break
            try:
                slot = croniter(schedule.cron, cursor).get_next(datetime)
            except CroniterBadDateError:
                break
            if not schedule.trading_days_only or _is_session(schedule.calendar, slot.date()):
                found.append(slot.astimezone(UTC))
                cursor = slot
            else:  # the next day's first slot
                cursor = datetime.combine(slot.date() + timedelta(days=1), time(0), zone) - timedelta(seconds=1)
        return found

    def last_session(self, calendar: str, on: date) -> date:
        day = on
        for _ in range(MAX_DAYS_SKIPPED):
            if _is_session(calendar, day):
                return day
            day -= timedelta(days=1)
        return on


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidScheduleError(
            f"timezone {timezone!r} is not an IANA time zone (e.g. Asia/Shanghai, America/New_York)"
        ) from None


@functools.cache
def _calendar_names() -> frozenset[str]:
    import exchange_calendars

    return frozenset(exchange_calendars.get_calendar_names(include_aliases=True))


@functools.cache
def _calendar(code: str) -> Any:
    import exchange_calendars

    with warnings.catch_warnings():  # exchange_calendars on pandas 3 (its own deprecation, not ours to act on)
        warnings.filterwarnings("ignore", message="Series.values returning an ndarray")
        return exchange_calendars.get_calendar(code)


def _is_session(code: str, day: date) -> bool:
    """Whether the exchange trades on ``day`` (outside the days its calendar knows: whether it is a weekday)."""
    calendar = _calendar(code)
    if not calendar.first_session.date() <= day <= calendar.last_session.date():
        return day.weekday() < 5
    return bool(calendar.is_session(day.isoformat()))
