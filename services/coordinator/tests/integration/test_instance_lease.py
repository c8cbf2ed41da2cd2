"""Several coordinators on one database: a coordinator that starts (or sweeps while it runs) marks
``interrupted`` only the sessions of coordinators that are gone, never those a live replica is running.

On SQLite and on the local PostgreSQL (skipped clearly when it does not answer)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from coordinator_persistence_fakes import make_session, repository_on, sqlite_url
from sqlalchemy import text, update
from sqlalchemy.exc import OperationalError

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.domain.model.session import utcnow
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.instances import (
    INSTANCES,
    InstanceIdentity,
    InstanceLease,
    InstanceRecord,
    SqlAlchemyInstanceStore,
    is_alive,
    process_started,
)
from coordinator.infrastructure.persistence.migrate import alembic_config, run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store


@pytest.fixture
async def store(fresh_url: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    """A repository on a migrated database, with no lease of its own (the tests stage the instances)."""
    await run_migrations(fresh_url)
    async with repository_on(fresh_url) as repository:
        yield repository


@pytest.fixture
def instances(store: SqlAlchemySessionRepository) -> SqlAlchemyInstanceStore:
    """The instance rows of the same database, written through the same writer."""
    return SqlAlchemyInstanceStore(store._engine, store._writes)


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    return int(done.stdout)


async def session_owned_by(store: SqlAlchemySessionRepository, owner: str | None) -> str:
    store.owner = owner
    session = make_session(status="running")
    await store.create(session)
    return session.session_id


async def status(store: SqlAlchemySessionRepository, session_id: str) -> str:
    found = await store.get(session_id)
    assert found is not None
    return found.status


async def wait_until(read: Callable[[], Awaitable[object]], expected: object) -> None:
    """Poll ``read`` until it returns ``expected`` (the lease renews in the background); 10 s at most."""
    async with asyncio.timeout(10):
        while await read() != expected:  # noqa: ASYNC110  # a database row, not an event we could await
            await asyncio.sleep(0.05)


HERE = InstanceIdentity.of_this_process()
needs_proc = pytest.mark.skipif(
    HERE.process_started is None, reason="no /proc here: a process on this machine is judged by its heartbeat only"
)


async def test_a_coordinator_starting_leaves_a_live_replicas_sessions_running(fresh_url: str) -> None:
    first, close_first = await open_session_store(fresh_url)
    try:
        running = make_session(status="running")
        await first.create(running)
        second, close_second = await open_session_store(fresh_url)  # a replica starts (or a rolling update)
        try:
            assert await second.get(running.session_id) is not None
            assert await status(second, running.session_id) == "running"
        finally:
            await close_second()
        assert await status(first, running.session_id) == "running"  # the replica's shutdown left it too
    finally:
        await close_first()


@needs_proc
async def test_a_dead_coordinator_on_this_machine_is_known_at_once(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore
) -> None:
    crashed = replace(InstanceIdentity.of_this_process(), pid=dead_pid())
    reused = replace(InstanceIdentity.of_this_process(), process_started=(HERE.process_started or 0) + 1)
    for identity in (crashed, reused):  # its pid is free, or now another process's
        await instances.register_instance(identity)  # heartbeat just now: only the process check can tell
    orphans = [await session_owned_by(store, i.instance_id) for i in (crashed, reused)]

    lease = InstanceLease(instances, store, lease_seconds=3600)
    assert await lease.start() == 2
    await lease.stop()
    assert [await status(store, s) for s in orphans] == ["interrupted", "interrupted"]
    assert [r.identity.instance_id for r in await instances.instances()] == []  # forgotten, and ours released


def elsewhere(n: int) -> InstanceIdentity:
    """A coordinator on another node or in another container: only its heartbeat says whether it lives."""
    return replace(InstanceIdentity.of_this_process(), hostname=f"other-node-{n}", pid_namespace=f"pid:[{n}]")


async def heartbeat_ago(store: SqlAlchemySessionRepository, instance_id: str, seconds: float) -> None:
    async with store._engine.begin() as conn:
        await conn.execute(
            update(INSTANCES)
            .where(INSTANCES.c.instance_id == instance_id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=seconds))
        )


async def test_a_coordinator_elsewhere_is_gone_when_its_heartbeat_is_older_than_the_lease(
    store: SqlAlchemySessionRepository,
    instances: SqlAlchemyInstanceStore,
) -> None:
    silent, renewing = elsewhere(1), elsewhere(2)
    await instances.register_instance(silent)
    await instances.register_instance(renewing)
    silent_session = await session_owned_by(store, silent.instance_id)
    renewing_session = await session_owned_by(store, renewing.instance_id)
    lease = InstanceLease(instances, store, lease_seconds=30)

    await heartbeat_ago(store, silent.instance_id, 29)
    await heartbeat_ago(store, renewing.instance_id, 1)
    assert await lease.sweep() == 0  # within the lease: presumed alive
    await heartbeat_ago(store, silent.instance_id, 31)
    assert await lease.sweep() == 1
    assert await status(store, silent_session) == "interrupted"
    assert await status(store, renewing_session) == "running"


async def test_a_running_coordinator_sweeps_at_every_renewal(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore
) -> None:
    gone = elsewhere(1)
    await instances.register_instance(gone)
    orphan = await session_owned_by(store, gone.instance_id)
    lease = InstanceLease(instances, store, lease_seconds=1.5)
    await lease.start()
    try:
        assert await status(store, orphan) == "running"  # its heartbeat is fresh at our start
        await heartbeat_ago(store, gone.instance_id, 60)
        await wait_until(lambda: status(store, orphan), "interrupted")
    finally:
        await lease.stop()


async def test_sessions_without_a_registered_owner_are_orphans(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore
) -> None:
    legacy = await session_owned_by(store, None)  # written before instances were recorded
    unknown = await session_owned_by(store, "no-such-instance")
    finished = make_session(status="partial")
    store.owner = None
    await store.create(finished)

    assert await instances.interrupt_orphaned_sessions([]) == 2
    assert [await status(store, s) for s in (legacy, unknown, finished.session_id)] == [
        "interrupted",
        "interrupted",
        "partial",
    ]


async def test_shutting_down_interrupts_only_this_coordinators_running_sessions(fresh_url: str) -> None:
    mine, close_mine = await open_session_store(fresh_url)
    theirs, close_theirs = await open_session_store(fresh_url)
    try:
        my_session, their_session = make_session(status="running"), make_session(status="running")
        await mine.create(my_session)
        await theirs.create(their_session)
        await close_mine()
        assert await status(theirs, my_session.session_id) == "interrupted"
        assert await status(theirs, their_session.session_id) == "running"
    finally:
        await close_theirs()


async def test_a_coordinator_swept_while_stalled_registers_again(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore
) -> None:
    lease = InstanceLease(instances, store, lease_seconds=1.2)
    await lease.start()
    try:
        await instances.interrupt_orphaned_sessions([lease.instance_id])  # another replica took it for gone

        async def registered() -> bool:
            return lease.instance_id in [r.identity.instance_id for r in await instances.instances()]

        await wait_until(registered, True)  # at its next renewal
    finally:
        await lease.stop()


async def test_after_an_outage_no_one_is_judged_by_heartbeat_for_a_lease(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = elsewhere(1)
    await instances.register_instance(other)
    theirs = await session_owned_by(store, other.instance_id)
    await heartbeat_ago(store, other.instance_id, 60)  # it could not renew during the outage either
    lease = InstanceLease(instances, store, lease_seconds=0.5)
    await instances.register_instance(lease.identity)
    reachable = instances.renew_instance

    async def refused(instance_id: str) -> bool:
        raise SessionStoreUnavailableError("The session store is unavailable: connection refused")

    monkeypatch.setattr(instances, "renew_instance", refused)
    with pytest.raises(SessionStoreUnavailableError):
        await lease.renew()
    monkeypatch.setattr(instances, "renew_instance", reachable)
    await lease.renew()
    assert await status(store, theirs) == "running"  # its heartbeat says nothing yet
    await asyncio.sleep(0.6)  # a whole lease of reaching the store, and it still has not renewed
    await lease.renew()
    assert await status(store, theirs) == "interrupted"


async def test_a_final_status_the_store_refused_is_written_at_the_next_renewal(
    store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    lease = InstanceLease(instances, store, lease_seconds=30)
    await instances.register_instance(lease.identity)
    session_id = await session_owned_by(store, lease.instance_id)
    reachable = store._writes.run

    async def refused(statements: object) -> None:
        orig = ConnectionRefusedError("connection refused")
        raise OperationalError("UPDATE research_sessions SET status=?", {"secret": "parameters"}, orig)

    monkeypatch.setattr(store._writes, "run", refused)
    with pytest.raises(SessionStoreUnavailableError) as caught:
        await store.finish(session_id, "completed")
    assert str(caught.value) == "The session store is unavailable (ConnectionRefusedError); retry later."
    monkeypatch.setattr(store._writes, "run", reachable)
    assert await status(store, session_id) == "running"
    await lease.renew()
    assert await status(store, session_id) == "completed"
    assert await store.write_unwritten_finishes() == 0


async def test_a_final_status_is_final(store: SqlAlchemySessionRepository, instances: SqlAlchemyInstanceStore) -> None:
    session_id = await session_owned_by(store, None)
    assert await instances.interrupt_orphaned_sessions([]) == 1
    await store.finish(session_id, "completed")  # its coordinator was alive after all, and finished
    found = await store.get(session_id)
    assert found is not None
    assert found.status == "interrupted"
    assert found.completed_at is not None


async def test_upgrading_a_database_of_the_first_revision_keeps_its_sessions(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    engine = build_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0001_research_sessions"))
            now = utcnow().replace(tzinfo=None).isoformat(sep=" ")
            await conn.execute(
                text(
                    "INSERT INTO research_sessions (session_id, symbol, experts, options, skip_debate, status, "
                    "retry_count, debate_status, judge_status, created_at, updated_at) VALUES "
                    "('s-1', '600519.SH', '[]', '{}', 0, 'running', 0, 'pending', 'pending', :now, :now)"
                ),
                {"now": now},
            )
    finally:
        await engine.dispose()

    repository, close = await open_session_store(url)  # migrates to head, then sweeps
    try:
        assert await status(repository, "s-1") == "interrupted"  # no owner recorded: an orphan
    finally:
        await close()


@needs_proc
def test_liveness_rules() -> None:
    now = utcnow()
    lease = timedelta(seconds=30)
    fresh, stale = now, now - timedelta(seconds=31)
    this_machine_alive = InstanceRecord(HERE, stale)  # its process runs: the stale heartbeat does not matter
    this_machine_dead = InstanceRecord(replace(HERE, pid=dead_pid()), fresh)
    other_container = replace(HERE, pid_namespace="pid:[1]")  # its pid means nothing here, whatever the hostname
    rebooted = replace(HERE, boot_id="another-boot")
    same_hostname_other_container = replace(HERE, pid=dead_pid(), pid_namespace="pid:[2]")
    assert is_alive(this_machine_alive, here=HERE, lease=lease, now=now)
    assert not is_alive(this_machine_dead, here=HERE, lease=lease, now=now)
    assert is_alive(InstanceRecord(other_container, fresh), here=HERE, lease=lease, now=now)
    assert not is_alive(InstanceRecord(other_container, stale), here=HERE, lease=lease, now=now)
    assert not is_alive(InstanceRecord(rebooted, stale), here=HERE, lease=lease, now=now)
    assert is_alive(InstanceRecord(same_hostname_other_container, fresh), here=HERE, lease=lease, now=now)
    assert process_started(HERE.pid) == HERE.process_started
