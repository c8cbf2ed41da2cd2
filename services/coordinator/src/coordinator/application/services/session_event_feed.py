"""Follows a session's events: its history after a given number (read from the store by each subscriber), then each
new event until the terminal one.

New events are read by one reader per session in this process, shared by all its subscribers: it reads what the
store has when woken (``wake``: an event committed here, or one another coordinator announced through the store's
notifications) and at the latest every ``poll_seconds`` (so a subscriber on any coordinator sees what another runs,
notifications or not), and hands each event to every subscriber. The reader ends with its last subscriber.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from coordinator.domain.model.events import SessionEvent, terminal_event
from coordinator.domain.model.session import FINAL_STATUSES, ResearchSession
from coordinator.domain.ports.job_store import IJobStore
from shared_contracts.redaction import error_text

log = logging.getLogger(__name__)


class SessionEventFeed:
    def __init__(self, store: IJobStore, *, poll_seconds: float) -> None:
        self._store = store
        self._poll_seconds = poll_seconds
        self._readers: dict[str, _SessionReader] = {}

    def wake(self, session_id: str) -> None:
        """The session has new events in the store: its reader (if it has subscribers here) reads them now."""
        if (reader := self._readers.get(session_id)) is not None:
            reader.wake.set()

    async def follow(self, session_id: str, after: int) -> AsyncIterator[SessionEvent]:
        """The events numbered above ``after``, in order, ending with the terminal one. A session that ended
        without one (stored before events were) ends with a terminal event numbered 0, made from its status."""
        while True:  # the history: this subscriber's own reads
            events = await self._store.events_after(session_id, after)
            for event in events:
                yield event
                after = event.seq
                if event.terminal:
                    return
            if not events:
                break
        reader = self._readers.get(session_id)
        if reader is None:
            reader = self._readers[session_id] = _SessionReader(self._store, session_id, after, self._poll_seconds)
        reader.subscribers += 1
        try:
            seen = reader.position_after(after)
            while True:
                for event in reader.events[seen:]:
                    seen += 1
                    if event.seq > after or event.seq == 0:
                        yield event
                    if event.terminal:
                        return
                if reader.ended:
                    return
                await reader.changed.wait()
        finally:
            reader.subscribers -= 1
            if reader.subscribers == 0 and self._readers.get(session_id) is reader:
                del self._readers[session_id]
                reader.stop()


class _SessionReader:
    """Reads one session's new events for its subscribers (``events``, in order); ``changed`` is set, and
    replaced, each time some arrive."""

    def __init__(self, store: IJobStore, session_id: str, after: int, poll_seconds: float) -> None:
        self._store, self._session_id, self._last = store, session_id, after
        self._poll_seconds = poll_seconds
        self.events: list[SessionEvent] = []
        self.ended = False
        self.subscribers = 0
        self.wake = asyncio.Event()
        self.changed = asyncio.Event()
        self._task = asyncio.create_task(self._read_forever(), name=f"session-events-{session_id}")

    def position_after(self, after: int) -> int:
        return next((i for i, e in enumerate(self.events) if e.seq > after or e.seq == 0), len(self.events))

    def stop(self) -> None:
        self._task.cancel()

    def _publish(self, events: list[SessionEvent]) -> None:
        self.events.extend(events)
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def _read_forever(self) -> None:
        try:
            while not self.ended:
                self.wake.clear()
                try:
                    await self._read()
                except Exception as exc:  # the store may be briefly down: the next round reads again
                    log.warning("session_events_not_read %s: %s", self._session_id, error_text(exc))
                if not self.ended:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self._poll_seconds):
                            await self.wake.wait()
        finally:
            self.ended = True
            self._publish([])

    async def _read(self) -> None:
        events = list(await self._store.events_after(self._session_id, self._last))
        if events:
            self._last = events[-1].seq
            self.ended = any(e.terminal for e in events)
            self._publish(events)
            return
        status = (await self._store.statuses([self._session_id])).get(self._session_id)
        if status is None:  # deleted (retention)
            self.ended = True
        elif status in FINAL_STATUSES and not await self._store.events_after(self._session_id, self._last):
            made = terminal_event(status)
            self.ended = True
            self._publish([SessionEvent(self._session_id, 0, made.type, made.data)])


def snapshot_of(session: ResearchSession, queue_position: int | None) -> dict[str, Any]:
    """The session's state now: the first event of every subscription."""
    return {
        "session_id": session.session_id,
        "symbol": session.symbol,
        "status": session.status,
        "queue_position": queue_position,
        "resume_count": session.resume_count,
        "last_event_id": session.last_event_seq,
        "experts": {e: (o.status if (o := session.expert_outcomes.get(e)) else "pending") for e in session.experts},
        "debate": session.debate.status,
        "verdict": session.judge.status,
    }
