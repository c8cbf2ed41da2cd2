"""Cron slots and exchange trading days, for schedules."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date, datetime

from coordinator.domain.model.watchlist import Schedule


class IScheduleCalendar(ABC):
    @abstractmethod
    def check(self, cron: str, timezone: str, calendar: str) -> None:
        """Raises ``InvalidScheduleError`` naming what is wrong: a cron expression that is not five fields or fires
        more often than once a minute, an unknown IANA time zone or exchange calendar."""

    @abstractmethod
    def latest_slot(self, schedule: Schedule, now: datetime) -> datetime | None:
        """The latest slot of ``schedule`` at or before ``now`` and not before it was created (on a trading day,
        when it keeps to them), in UTC; None when there is none."""

    @abstractmethod
    def next_slots(self, schedule: Schedule, now: datetime, count: int) -> list[datetime]:
        """The next ``count`` slots after ``now`` (trading days only, when it keeps to them), in UTC."""

    @abstractmethod
    def last_session(self, calendar: str, on: date) -> date:
        """The latest trading day of ``calendar`` on or before ``on`` (weekdays beyond the calendar's range)."""
