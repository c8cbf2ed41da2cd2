"""A run's "stage started" events: a stage that ends within the delay takes them into its own write; one that
takes longer has them written while it runs; a write under way is waited for, so the order holds."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from coordinator_fakes import InMemorySessionRepository

from coordinator.application.services.pending_events import PendingEvents
from coordinator.domain.model.events import NewEvent

STARTED = NewEvent("expert.started", {"expert": "technical_analyst"})
COMPLETED = NewEvent("expert.completed", {"expert": "technical_analyst"})
DELAY = 0.05


def stored_types(store: InMemorySessionRepository) -> list[str]:
    return [e.type for e in store.events.get("s1", [])]


async def test_a_stage_that_ends_within_the_delay_writes_its_start_with_its_end() -> None:
    store, woken = InMemorySessionRepository(), []
    notes = PendingEvents(store, "s1", woken.append, delay=DELAY)
    notes.add(STARTED)
    assert await notes.take(COMPLETED) == [STARTED, COMPLETED]  # for the caller's own transaction
    await asyncio.sleep(DELAY * 3)
    assert stored_types(store) == []  # no write of its own
    assert woken == []


async def test_a_longer_stage_has_its_start_written_while_it_runs() -> None:
    store, woken = InMemorySessionRepository(), []
    notes = PendingEvents(store, "s1", woken.append, delay=DELAY)
    notes.add(STARTED)
    notes.add(NewEvent("expert.started", {"expert": "macro_intelligence"}))  # the same moment: the same write
    await asyncio.sleep(DELAY * 4)
    assert stored_types(store) == ["expert.started", "expert.started"]
    assert woken == ["s1"]
    assert await notes.take(COMPLETED) == [COMPLETED]


async def test_a_write_under_way_is_waited_for_and_what_came_meanwhile_joins_it() -> None:
    release = asyncio.Event()

    class SlowStore(InMemorySessionRepository):
        async def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
            await release.wait()
            return await super().append_events(session_id, events)

    store = SlowStore()
    notes = PendingEvents(store, "s1", lambda _: None, delay=DELAY)
    notes.add(STARTED)
    await asyncio.sleep(DELAY * 3)  # the write has begun and waits for the store
    notes.add(NewEvent("debate.started", {}))
    taking = asyncio.create_task(notes.take(COMPLETED))
    await asyncio.sleep(DELAY)
    assert not taking.done()  # it waits for the write under way
    release.set()
    assert await taking == [COMPLETED]
    assert stored_types(store) == ["expert.started", "debate.started"]
