"""The retention purge runs at start and then on its schedule, deletes what is older than the retention, and a
store failure does not stop it."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from coordinator_fakes import InMemorySessionRepository
from coordinator_persistence_fakes import make_session

from coordinator.domain.model.session import utcnow
from coordinator.infrastructure.persistence.retention import RetentionPurge


async def test_the_scheduled_purge_deletes_expired_sessions_and_keeps_running() -> None:
    repo = InMemorySessionRepository()
    expired = make_session(status="completed")
    expired.created_at = utcnow() - timedelta(days=31)
    fresh = make_session(status="completed")
    fresh.created_at = utcnow() - timedelta(days=29)
    for s in (expired, fresh):
        await repo.create(s)
    purge = RetentionPurge(repo, retention_days=30, interval_seconds=0.05)

    purge.start()
    await asyncio.sleep(0.02)
    assert set(repo.sessions) == {fresh.session_id}  # at start

    later = make_session(status="partial")
    later.created_at = utcnow() - timedelta(days=40)
    await repo.create(later)
    await asyncio.sleep(0.1)
    await purge.stop()
    assert set(repo.sessions) == {fresh.session_id}  # on the schedule


async def test_a_failing_store_does_not_end_the_schedule() -> None:
    repo = InMemorySessionRepository()
    calls = 0
    real = repo.purge

    async def flaky(created_before):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("store down")
        return await real(created_before)

    repo.purge = flaky  # type: ignore[method-assign]
    purge = RetentionPurge(repo, retention_days=1, interval_seconds=0.02)
    purge.start()
    await asyncio.sleep(0.1)
    await purge.stop()
    assert calls >= 3
