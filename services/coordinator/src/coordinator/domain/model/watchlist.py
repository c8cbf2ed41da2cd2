"""A watchlist (a client's named list of symbols), its schedules (when to research it again) and the runs a
schedule's slots fired (each slot once, with the batch it started)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from coordinator.domain.model.session import LOCAL_CLIENT_ID, utcnow

MAX_WATCHLIST_NAME = 100
DEFAULT_TIMEZONE = "Asia/Shanghai"
DEFAULT_CALENDAR = "XSHG"
"""The exchange whose trading days a schedule keeps to (exchange_calendars' code)."""


@dataclass
class Watchlist:
    watchlist_id: str
    name: str
    symbols: list[str]
    client_id: str = LOCAL_CLIENT_ID
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)


@dataclass(frozen=True)
class Schedule:
    """When a watchlist is researched again: each ``cron`` slot in ``timezone`` (on ``calendar``'s trading days
    only, when ``trading_days_only``), its batch's notification sent to ``channels``."""

    schedule_id: str
    watchlist_id: str
    cron: str
    timezone: str = DEFAULT_TIMEZONE
    trading_days_only: bool = True
    calendar: str = DEFAULT_CALENDAR
    channels: list[str] = field(default_factory=list)
    client_id: str = LOCAL_CLIENT_ID
    created_at: datetime = field(default_factory=utcnow)


@dataclass(frozen=True)
class ScheduleRun:
    """A slot a schedule fired (``slot``: the slot's time, UTC) and the batch it started (None: it could not
    start one, ``error`` says why)."""

    schedule_id: str
    slot: datetime
    fired_at: datetime
    batch_id: str | None = None
    error: str | None = None
