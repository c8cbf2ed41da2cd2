"""A running research's events that record no stage, written in batches beside the stages' own transactions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from coordinator.domain.model.events import NewEvent
from coordinator.domain.ports.job_store import IJobStore


class PendingEvents:
    """A run's events that record no stage (``session.started``, a stage starting): those one moment brings are
    appended in one write, in the background; a stage's record takes the unwritten ones into its own transaction,
    after waiting for the write under way, so the session's events keep their order."""

    def __init__(self, store: IJobStore, session_id: str, written: Callable[[str], None]) -> None:
        self._store = store
        self._session_id = session_id
        self._written = written
        self._pending: list[NewEvent] = []
        self._writing: asyncio.Task[None] | None = None

    def add(self, event: NewEvent) -> None:
        self._pending.append(event)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_pending())

    async def take(self, *then: NewEvent | None) -> list[NewEvent]:
        """The events not written yet, then ``then``'s: to be written by the caller."""
        if self._writing is not None:
            await self._writing
        taken, self._pending = self._pending, []
        return [*taken, *(e for e in then if e is not None)]

    def close(self) -> None:
        if self._writing is not None:
            self._writing.cancel()

    async def _write_pending(self) -> None:
        await asyncio.sleep(0)  # the events of the same moment (the experts starting together) join this write
        while self._pending:
            events, self._pending = self._pending, []
            await self._store.append_events(self._session_id, events)
            self._written(self._session_id)
