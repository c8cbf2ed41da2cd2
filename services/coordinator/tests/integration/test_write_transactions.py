"""How the repository's writes run: a SQLite file's on a thread of their own (writes that queue up while one
commits are committed together), everything else through the async engine; either way each caller resumes
only after its write is committed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from coordinator_persistence_fakes import make_session, repository_on, sqlite_url
from sqlalchemy import Connection, event, text

from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.migrate import run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.infrastructure.persistence.write_transactions import (
    AsyncEngineWrites,
    SqliteWriterThread,
    write_transactions_for,
)


@pytest.fixture
async def sqlite_file(tmp_path: Path) -> str:
    url = sqlite_url(tmp_path)
    await run_migrations(url)
    return url


async def _committed(url: str, query: str) -> list[Any]:
    """Through another engine: only what was committed is seen."""
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(text(query))).scalars())
    finally:
        await engine.dispose()


async def _count_sessions(url: str) -> int:
    [count] = await _committed(url, "SELECT count(*) FROM research_sessions")
    return int(count)


async def test_a_sqlite_file_is_written_on_its_own_thread_and_committed_on_return(sqlite_file: str) -> None:
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    try:
        assert isinstance(writes, SqliteWriterThread)

        def statements(conn: Connection) -> str:
            conn.execute(text("SELECT 1"))
            return threading.current_thread().name

        thread_name = await writes.run(statements)
        assert thread_name.startswith("session-writes")
        assert thread_name != threading.current_thread().name

        repository = SqlAlchemySessionRepository(engine)
        try:
            await repository.create(make_session())
            assert await _count_sessions(sqlite_file) == 1
        finally:
            await repository.close()
    finally:
        await writes.close()
        await engine.dispose()


@pytest.fixture
async def repository(sqlite_file: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    async with repository_on(sqlite_file) as made:
        yield made


async def test_a_failing_transaction_is_rolled_back_whole(
    sqlite_file: str, repository: SqlAlchemySessionRepository
) -> None:
    await repository.create(make_session())

    def half_then_fail(conn: Connection) -> None:
        conn.execute(text("DELETE FROM research_sessions"))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await repository._writes.run(half_then_fail)
    assert await _count_sessions(sqlite_file) == 1


async def test_a_write_that_started_still_commits_when_its_caller_is_cancelled(
    repository: SqlAlchemySessionRepository,
) -> None:
    started, release = threading.Event(), threading.Event()
    session = make_session()

    def slow_write(conn: Connection) -> None:
        started.set()
        release.wait(5)
        conn.execute(text("UPDATE research_sessions SET symbol = 'AFTER.CANCEL'"))

    await repository.create(session)
    task = asyncio.create_task(repository._writes.run(slow_write))
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    await repository.finish(session.session_id, "completed")  # queued behind it on the one thread
    stored = await repository.get(session.session_id)
    assert stored is not None
    assert (stored.symbol, stored.status) == ("AFTER.CANCEL", "completed")


async def test_writes_of_one_process_run_one_at_a_time_in_the_order_asked(sqlite_file: str) -> None:
    """No two transactions overlap, so none ever waits out SQLite's busy-handler sleeps."""
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    spans: list[tuple[int, str]] = []
    try:

        def write(n: int) -> Callable[[Connection], None]:
            def statements(conn: Connection) -> None:
                spans.append((n, "begin"))
                conn.execute(text("SELECT 1"))
                time.sleep(0.002)
                spans.append((n, "end"))

            return statements

        await asyncio.gather(*(writes.run(write(n)) for n in range(20)))
    finally:
        await writes.close()
        await engine.dispose()
    assert spans == [(n, edge) for n in range(20) for edge in ("begin", "end")]


async def test_in_memory_sqlite_and_postgresql_write_through_the_async_engine() -> None:
    memory = build_engine("sqlite+aiosqlite://")
    postgres = build_engine("postgresql+asyncpg://postgres@127.0.0.1:1/nowhere")  # never connected here
    try:
        assert isinstance(write_transactions_for(memory), AsyncEngineWrites)
        assert isinstance(write_transactions_for(postgres), AsyncEngineWrites)
    finally:
        await memory.dispose()
        await postgres.dispose()


async def test_closing_the_store_stops_the_writer_and_reader_threads(tmp_path: Path) -> None:
    repository, close = await open_session_store(sqlite_url(tmp_path))
    session = make_session()
    await repository.create(session)
    assert await repository.events_after(session.session_id, 0) == []
    assert any(t.name.startswith("session-writes") for t in threading.enumerate())
    assert any(t.name.startswith("session-reads") for t in threading.enumerate())
    await close()
    assert not any(t.name.startswith(("session-writes", "session-reads")) for t in threading.enumerate())


@pytest.fixture
async def writer_thread(sqlite_file: str) -> AsyncIterator[SqliteWriterThread]:
    """The writer of ``sqlite_file``, with a table ``marks`` of its own to write to."""
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    assert isinstance(writes, SqliteWriterThread)
    try:
        await writes.run(lambda conn: conn.execute(text("CREATE TABLE marks (name TEXT PRIMARY KEY)")))
        yield writes
    finally:
        await writes.close()
        await engine.dispose()


@asynccontextmanager
async def _thread_held(writes: SqliteWriterThread) -> AsyncIterator[None]:
    """The writer thread busy in a transaction until the block ends: what is asked for meanwhile queues."""
    started, release = threading.Event(), threading.Event()

    def hold(conn: Connection) -> None:
        started.set()
        release.wait(5)

    holder = asyncio.create_task(writes.run(hold))
    await asyncio.to_thread(started.wait, 5)
    try:
        yield
        await asyncio.sleep(0)  # the tasks created in the block run up to their wait, their writes queued
    finally:
        release.set()
        await holder


def _mark(name: str) -> Callable[[Connection], str]:
    def statements(conn: Connection) -> str:
        conn.execute(text("INSERT INTO marks (name) VALUES (:name)"), {"name": name})
        return name

    return statements


async def _marks(url: str) -> list[str]:
    return sorted(await _committed(url, "SELECT name FROM marks"))


async def test_writes_asked_for_while_one_commits_are_committed_together(
    sqlite_file: str, writer_thread: SqliteWriterThread
) -> None:
    commits: list[int] = []
    event.listen(writer_thread._engine, "commit", lambda conn: commits.append(1))
    async with _thread_held(writer_thread):
        queued = [asyncio.create_task(writer_thread.run(_mark(f"s{n}"))) for n in range(5)]
        await asyncio.sleep(0)  # their writes are queued
        assert not any(task.done() for task in queued)  # nobody resumes before its commit
    assert await asyncio.gather(*queued) == [f"s{n}" for n in range(5)]
    assert len(commits) == 2  # the holding transaction, then the five queued behind it in one
    assert await _marks(sqlite_file) == [f"s{n}" for n in range(5)]


async def test_a_failing_write_in_a_group_fails_only_its_own_caller(
    sqlite_file: str, writer_thread: SqliteWriterThread
) -> None:
    def failing(conn: Connection) -> None:
        conn.execute(text("DELETE FROM marks"))
        raise RuntimeError("boom")

    async with _thread_held(writer_thread):
        before = asyncio.create_task(writer_thread.run(_mark("before")))
        bad = asyncio.create_task(writer_thread.run(failing))
        after = asyncio.create_task(writer_thread.run(_mark("after")))
    assert await before == "before"
    with pytest.raises(RuntimeError, match="boom"):
        await bad
    assert await after == "after"
    assert await _marks(sqlite_file) == ["after", "before"]


async def test_a_queued_write_is_committed_even_if_its_caller_is_cancelled_before_it_starts(
    sqlite_file: str, writer_thread: SqliteWriterThread
) -> None:
    async with _thread_held(writer_thread):
        queued = asyncio.create_task(writer_thread.run(_mark("queued")))
        await asyncio.sleep(0)  # its write is queued
        queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    await writer_thread.run(lambda conn: None)  # queued behind it on the one thread
    assert await _marks(sqlite_file) == ["queued"]


async def test_a_sqlite_file_is_read_on_reader_threads_without_waiting_for_a_write_in_progress(
    writer_thread: SqliteWriterThread,
) -> None:
    await writer_thread.run(_mark("committed"))
    started, release = threading.Event(), threading.Event()

    def write_and_hold(conn: Connection) -> None:
        conn.execute(text("INSERT INTO marks (name) VALUES ('uncommitted')"))
        started.set()
        release.wait(5)

    holder = asyncio.create_task(writer_thread.run(write_and_hold))
    try:
        await asyncio.to_thread(started.wait, 5)

        def read(conn: Connection) -> tuple[str, list[str]]:
            names = sorted(conn.execute(text("SELECT name FROM marks")).scalars())
            return threading.current_thread().name, names

        thread_name, names = await asyncio.wait_for(writer_thread.read(read), 2)
        assert thread_name.startswith("session-reads")
        assert names == ["committed"]
    finally:
        release.set()
        await holder
    assert (await writer_thread.read(read))[1] == ["committed", "uncommitted"]


async def test_in_memory_sqlite_reads_through_the_async_engine_and_sees_committed_writes() -> None:
    engine = build_engine("sqlite+aiosqlite://")
    writes = write_transactions_for(engine)
    try:
        await writes.run(lambda conn: conn.execute(text("CREATE TABLE marks (name TEXT PRIMARY KEY)")))
        await writes.run(_mark("one"))
        assert await writes.read(lambda conn: list(conn.execute(text("SELECT name FROM marks")).scalars())) == ["one"]
    finally:
        await writes.close()
        await engine.dispose()


async def test_a_position_beyond_any_event_number_reads_nothing(tmp_path: Path) -> None:
    repository, close = await open_session_store(sqlite_url(tmp_path))
    try:
        session = make_session()
        await repository.create(session)
        assert await repository.events_after(session.session_id, 10**30) == []  # ?after= past a BIGINT: no 500
    finally:
        await close()


async def test_writes_a_lock_held_elsewhere_refuses_fail_together_after_one_busy_timeout(
    sqlite_file: str, writer_thread: SqliteWriterThread
) -> None:
    """Another process's exclusive lock: the group waits the busy timeout (2 s) once and fails whole, instead of each
    write waiting again on its own (five writes took five timeouts more)."""
    import sqlite3

    database = sqlite_file.split("///", 1)[1]
    holder = sqlite3.connect(database, timeout=0, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    try:
        async with _thread_held(writer_thread):
            queued = [asyncio.create_task(writer_thread.run(_mark(f"s{n}"))) for n in range(5)]
        outcomes = await asyncio.gather(*queued, return_exceptions=True)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    seconds = time.monotonic() - started
    assert all("database is locked" in str(o) for o in outcomes), outcomes
    assert seconds < 5
    assert await writer_thread.run(_mark("after")) == "after"
