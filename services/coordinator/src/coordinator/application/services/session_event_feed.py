"""Follows a session's events: its history after a given number, then each new event as the store has it (read
every ``poll_seconds``, so a subscriber on any coordinator sees what another runs), until the terminal event."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from coordinator.domain.model.events import SessionEvent, terminal_event
from coordinator.domain.model.session import FINAL_STATUSES, ResearchSession
from coordinator.domain.ports.job_store import IJobStore


class SessionEventFeed:
    def __init__(self, store: IJobStore, *, poll_seconds: float) -> None:
        self._store = store
        self._poll_seconds = poll_seconds

    async def follow(self, session_id: str, after: int) -> AsyncIterator[SessionEvent]:
        """The events numbered above ``after``, in order, ending with the terminal one. A session that ended
        without one (stored before events were) ends with a terminal event numbered 0, made from its status."""
        while True:
            events = await self._store.events_after(session_id, after)
            for event in events:
                yield event
                after = event.seq
                if event.terminal:
                    return
            if events:
                continue
            status = (await self._store.statuses([session_id])).get(session_id)
            if status is None:
                return  # deleted (retention)
            if status in FINAL_STATUSES and not await self._store.events_after(session_id, after):
                made = terminal_event(status)
                yield SessionEvent(session_id, 0, made.type, made.data)
                return
            await asyncio.sleep(self._poll_seconds)


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
