"""The batch store on SQLite and the local PostgreSQL: concurrent claimers on two engines (two replicas) never take
one item twice and take every item; an item no longer its claimer's is not ended by it."""

from __future__ import annotations

import asyncio
import uuid
from datetime import date

from coordinator.domain.model.batch import Batch
from coordinator.domain.model.events import terminal_event
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.ports.batch_store import EndedItem
from coordinator.infrastructure.persistence.batch_store import SqlAlchemyBatchStore
from coordinator.infrastructure.persistence.store import open_session_store

DAY = date(2025, 6, 30)


def batch_of(count: int) -> tuple[Batch, list[ResearchSession]]:
    batch = Batch(str(uuid.uuid4()), DAY, ["technical_analyst"], count)
    items = [
        ResearchSession(
            str(uuid.uuid4()),
            f"{600000 + i}.SH",
            ["technical_analyst"],
            {},
            False,
            DAY,
            status="queued",
            batch_id=batch.batch_id,
            batch_position=i,
            created_at=batch.created_at,
        )
        for i in range(count)
    ]
    return batch, items


async def test_concurrent_claimers_on_two_engines_take_each_item_exactly_once(fresh_url: str) -> None:
    first, close_first = await open_session_store(fresh_url)
    second, close_second = await open_session_store(fresh_url)
    try:
        stores = [SqlAlchemyBatchStore.sharing(first), SqlAlchemyBatchStore.sharing(second)]
        batch, items = batch_of(60)
        await stores[0].create(batch, items)

        async def claim_all(store: SqlAlchemyBatchStore, owner: str) -> list[str]:
            taken: list[str] = []
            while (chunk := await store.claim_chunk(owner, 4)) is not None:
                taken += [s.session_id for s in chunk.sessions]
            return taken

        claims = await asyncio.gather(*(claim_all(stores[i % 2], f"owner-{i}") for i in range(6)))
        progress = await stores[1].progress(batch.batch_id)
        got = await stores[0].get(batch.batch_id)
    finally:
        await close_first()
        await close_second()

    taken = [session_id for claim in claims for session_id in claim]
    assert sorted(taken) == sorted(s.session_id for s in items)  # every item, none twice
    assert sum(bool(c) for c in claims) >= 2  # the claimers shared the work
    assert progress.done == 0
    assert got is not None
    assert got.status == "running"


async def test_an_item_another_coordinator_took_over_is_not_ended_by_its_first_claimer(fresh_url: str) -> None:
    sessions, close = await open_session_store(fresh_url)
    try:
        store = SqlAlchemyBatchStore.sharing(sessions)
        batch, items = batch_of(2)
        await store.create(batch, items)
        chunk = await store.claim_chunk("stalled", 2)
        assert chunk is not None
        await store.release([chunk.sessions[0].session_id], "stalled")  # as the lease does for a gone coordinator
        again = await store.claim_chunk("live", 2)
        assert again is not None
        ended = [EndedItem(s, "completed", [terminal_event("completed")]) for s in chunk.sessions]
        after_stalled = await store.end_chunk(batch.batch_id, ended, "stalled")
        progress = await store.progress(batch.batch_id)
        mine = [EndedItem(s, "completed", [terminal_event("completed")]) for s in again.sessions]
        after_live = await store.end_chunk(batch.batch_id, mine, "live")
    finally:
        await close()

    assert [s.session_id for s in again.sessions] == [items[0].session_id]
    assert again.sessions[0].resume_count == 1
    assert (progress.done, after_stalled.status) == (1, "running")  # only its own item
    assert after_live.status == "completed"
