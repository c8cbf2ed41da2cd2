"""The schedule use cases (a watchlist researched again at each slot of a cron) and the loop that fires them.

Each coordinator polls every schedule (``ScheduleRunner``): the latest slot at or before now, on a trading day when
the schedule keeps to them and not before the schedule was made, fires unless it has (the store keys each run by
schedule and slot, so two coordinators polling at once fire it once). Only the latest slot counts: slots missed
while every coordinator was down are not run one by one; the latest of them runs once, at the next poll after a
coordinator starts. A slot that cannot start its batch (the client's token quota spent, the queue full, the
watchlist's symbols gone from the universe) is recorded as fired with its error, and not tried again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from coordinator.application.services.batch_service import BatchCommand, BatchService
from coordinator.application.services.watchlist_service import WatchlistService
from coordinator.domain.exceptions import ScheduleNotFoundError
from coordinator.domain.model.session import utcnow
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.model.watchlist import Schedule, ScheduleRun
from coordinator.domain.ports.schedule_calendar import IScheduleCalendar
from coordinator.domain.ports.watchlist_store import IWatchlistStore
from shared_contracts.redaction import error_text

log = logging.getLogger(__name__)
NEXT_FIRE_TIMES = 5
LAST_RUNS = 10


@dataclass(frozen=True)
class ScheduleState:
    schedule: Schedule
    next_fire_times: list[datetime]
    last_runs: list[tuple[ScheduleRun, str | None]]


class ScheduleService:
    def __init__(
        self,
        store: IWatchlistStore,
        watchlists: WatchlistService,
        calendar: IScheduleCalendar,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._store = store
        self._watchlists = watchlists
        self._calendar = calendar
        self._now = now

    async def create(
        self,
        watchlist_id: str,
        viewer: Viewer,
        *,
        cron: str,
        timezone: str,
        trading_days_only: bool,
        calendar: str,
        channels: list[str],
    ) -> ScheduleState:
        """Raises 400 ``invalid_schedule`` (cron, time zone, calendar, a channel not the caller's)."""
        watchlist = await self._watchlists.get(watchlist_id, viewer)
        cron = " ".join(cron.split())
        self._calendar.check(cron, timezone, calendar)
        await self._watchlists.check_channels(channels, watchlist.client_id)
        schedule = Schedule(
            str(uuid.uuid4()),
            watchlist.watchlist_id,
            cron,
            timezone,
            trading_days_only,
            calendar,
            list(dict.fromkeys(channels)),
            watchlist.client_id,
            created_at=self._now(),
        )
        await self._store.add_schedule(schedule)
        return await self._state(schedule)

    async def list(self, watchlist_id: str, viewer: Viewer) -> list[ScheduleState]:
        await self._watchlists.get(watchlist_id, viewer)
        return [await self._state(s) for s in await self._store.schedules(watchlist_id)]

    async def get(self, watchlist_id: str, schedule_id: str, viewer: Viewer) -> ScheduleState:
        return await self._state(await self._visible(watchlist_id, schedule_id, viewer))

    async def delete(self, watchlist_id: str, schedule_id: str, viewer: Viewer) -> None:
        await self._visible(watchlist_id, schedule_id, viewer)
        await self._store.delete_schedule(schedule_id)

    async def _visible(self, watchlist_id: str, schedule_id: str, viewer: Viewer) -> Schedule:
        await self._watchlists.get(watchlist_id, viewer)
        schedule = await self._store.schedule(schedule_id)
        if schedule is None or schedule.watchlist_id != watchlist_id:
            raise ScheduleNotFoundError(schedule_id)
        return schedule

    async def _state(self, schedule: Schedule) -> ScheduleState:
        upcoming = self._calendar.next_slots(schedule, self._now(), NEXT_FIRE_TIMES)
        return ScheduleState(schedule, upcoming, await self._store.runs(schedule.schedule_id, LAST_RUNS))


class ScheduleRunner:
    """Fires each schedule's due slot, every ``poll_seconds``, from start-up until stopped."""

    def __init__(
        self,
        store: IWatchlistStore,
        watchlists: WatchlistService,
        batches: BatchService,
        calendar: IScheduleCalendar,
        *,
        poll_seconds: float = 15.0,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._store = store
        self._watchlists = watchlists
        self._batches = batches
        self._calendar = calendar
        self._poll_seconds = poll_seconds
        self._now = now
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._poll_forever(), name="schedule-slots")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def fire_due(self) -> int:
        """Fires every schedule's due slot that has not fired; how many this call fired."""
        fired = 0
        now = self._now()
        for schedule in await self._store.schedules():
            try:
                slot = self._calendar.latest_slot(schedule, now)
                if slot is None or await self._store.fired(schedule.schedule_id, slot):
                    continue
                fired += await self._fire(schedule, slot)
            except Exception as exc:  # one schedule's fault never holds up the others'
                log.warning("schedule_not_polled %s: %s", schedule.schedule_id, error_text(exc))
        if fired:
            self._batches.queued()
        return fired

    async def _fire(self, schedule: Schedule, slot: datetime) -> bool:
        fired_at = self._now()
        try:
            watchlist = await self._store.get(schedule.watchlist_id)
            if watchlist is None:
                return False  # deleted meanwhile (its schedules with it)
            day = await self._watchlists.default_day(watchlist, schedule.calendar)
            command = BatchCommand(
                symbols=list(watchlist.symbols),
                analysis_date=day.isoformat(),
                client_id=schedule.client_id,
                watchlist_id=watchlist.watchlist_id,
                schedule_id=schedule.schedule_id,
                channels=list(schedule.channels),
            )
            batch, sessions = await self._batches.prepare(command)
        except Exception as exc:  # recorded as the slot's run: the slot is not tried again
            error = error_text(exc)
            log.warning("schedule_slot_not_started %s %s: %s", schedule.schedule_id, slot.isoformat(), error)
            return await self._store.fire(ScheduleRun(schedule.schedule_id, slot, fired_at, error=error), None, [])
        run = ScheduleRun(schedule.schedule_id, slot, fired_at, batch_id=batch.batch_id)
        won = False
        try:
            won = await self._store.fire(run, batch, sessions)
        finally:
            if not won:  # another replica fired the slot, or the store failed: these items hold nothing
                await asyncio.shield(self._batches.release(sessions))
        if won:
            log.info("schedule_slot_fired %s %s batch %s", schedule.schedule_id, slot.isoformat(), batch.batch_id)
        return won

    async def _poll_forever(self) -> None:
        while True:
            try:
                await self.fire_due()
            except Exception as exc:  # the store may be briefly down: the next poll fires what is due
                log.warning("schedule_poll_failed: %s", error_text(exc))
            await asyncio.sleep(self._poll_seconds)
