"""A running research's events that record no stage, written in batches beside the stages' own transactions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from coordinator.domain.model.events import NewEvent
from coordinator.domain.ports.job_store import IJobStore


class PendingEvents:
    """A run's events that record no stage (a stage starting): written in the background at most ``delay`` seconds
    after the first of them, together with those that come meanwhile (the experts start together). A stage that
    ends sooner takes them into its own transaction (``take``), and so does the session's end: a stage that takes
    milliseconds costs no write of its own, one that takes seconds is seen starting within ``delay``. ``take`` waits
    for a write under way, so the session's events keep their order.

    >>> notes = PendingEvents(store, session_id, feed.wake, delay=0.1)
    >>> notes.add(NewEvent("expert.started", {"expert": "technical_analyst"}))
    >>> await notes.take(completed)  # [started, completed]: the caller writes both, unless the delay has passed
    """

    def __init__(self, store: IJobStore, session_id: str, written: Callable[[str], None], *, delay: float) -> None:
        self._store = store
        self._session_id = session_id
        self._written = written
        self._delay = delay
        self._pending: list[NewEvent] = []
        self._writing: asyncio.Task[None] | None = None
        self._under_way = False  # the background write has begun: ``take`` waits for it

    def add(self, event: NewEvent) -> None:
        self._pending.append(event)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_pending())

    async def take(self, *then: NewEvent | None) -> list[NewEvent]:
        """The events not written yet, then ``then``'s: to be written by the caller. Raises what a background
        write of this run's events raised."""
        writing = self._writing
        if writing is not None and not (writing.done() or self._under_way):
            writing.cancel()  # still waiting out its delay: the caller's transaction writes its events
            self._writing = None  # (a cancelled task is not done at once: ``add`` must not wait for it)
        elif writing is not None:
            await writing  # events added meanwhile join the write under way
        taken, self._pending = self._pending, []
        return [*taken, *(e for e in then if e is not None)]

    def close(self) -> None:
        if self._writing is not None:
            self._writing.cancel()

    async def _write_pending(self) -> None:
        await asyncio.sleep(self._delay)
        self._under_way = True
        try:
            while self._pending:
                events, self._pending = self._pending, []
                await self._store.append_events(self._session_id, events)
                self._written(self._session_id)
        finally:
            self._under_way = False
