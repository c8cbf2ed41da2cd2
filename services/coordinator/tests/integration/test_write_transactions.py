"""How the repository's writes run: a SQLite file's on a thread of their own (writes that queue up while one
commits are committed together), everything else through the async engine; either way each caller resumes
only after its write is committed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

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


async def _count_sessions(url: str) -> int:
    """Through another engine: only what was committed is seen."""
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(text("SELECT count(*) FROM research_sessions"))).scalar_one())
    finally:
        await engine.dispose()


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


async def test_closing_the_store_stops_the_writer_thread(tmp_path: Path) -> None:
    repository, close = await open_session_store(sqlite_url(tmp_path))
    await repository.create(make_session())
    assert any(t.name.startswith("session-writes") for t in threading.enumerate())
    await close()
    assert not any(t.name.startswith("session-writes") for t in threading.enumerate())


def _blocking_write(started: threading.Event, release: threading.Event) -> Callable[[Connection], None]:
    def statements(conn: Connection) -> None:
        started.set()
        release.wait(5)

    return statements


def _create_marks(conn: Connection) -> None:
    conn.execute(text("CREATE TABLE marks (name TEXT PRIMARY KEY)"))


def _mark(name: str) -> Callable[[Connection], str]:
    def statements(conn: Connection) -> str:
        conn.execute(text("INSERT INTO marks (name) VALUES (:name)"), {"name": name})
        return name

    return statements


async def _marks(url: str) -> list[str]:
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            return sorted(str(n) for n in (await conn.execute(text("SELECT name FROM marks"))).scalars())
    finally:
        await engine.dispose()


async def test_writes_asked_for_while_one_commits_are_committed_together(sqlite_file: str) -> None:
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    assert isinstance(writes, SqliteWriterThread)
    commits: list[int] = []
    started, release = threading.Event(), threading.Event()
    try:
        await writes.run(_create_marks)
        event.listen(writes._engine, "commit", lambda conn: commits.append(1))
        blocker = asyncio.create_task(writes.run(_blocking_write(started, release)))
        await asyncio.to_thread(started.wait, 5)
        queued = [asyncio.create_task(writes.run(_mark(f"s{n}"))) for n in range(5)]
        await asyncio.sleep(0.05)
        assert not any(task.done() for task in queued)  # nobody resumes before the commit
        release.set()
        await blocker
        assert await asyncio.gather(*queued) == [f"s{n}" for n in range(5)]
    finally:
        await writes.close()
        await engine.dispose()
    assert len(commits) == 2  # the blocking write, then the five queued behind it in one transaction
    assert await _marks(sqlite_file) == [f"s{n}" for n in range(5)]


async def test_a_failing_write_in_a_group_fails_only_its_own_caller(sqlite_file: str) -> None:
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    started, release = threading.Event(), threading.Event()

    def failing(conn: Connection) -> None:
        conn.execute(text("DELETE FROM marks"))
        raise RuntimeError("boom")

    try:
        await writes.run(_create_marks)
        blocker = asyncio.create_task(writes.run(_blocking_write(started, release)))
        await asyncio.to_thread(started.wait, 5)
        before = asyncio.create_task(writes.run(_mark("before")))
        bad = asyncio.create_task(writes.run(failing))
        after = asyncio.create_task(writes.run(_mark("after")))
        await asyncio.sleep(0.01)
        release.set()
        await blocker
        assert await before == "before"
        with pytest.raises(RuntimeError, match="boom"):
            await bad
        assert await after == "after"
    finally:
        await writes.close()
        await engine.dispose()
    assert await _marks(sqlite_file) == ["after", "before"]


async def test_a_queued_write_is_committed_even_if_its_caller_is_cancelled_before_it_starts(
    sqlite_file: str,
) -> None:
    engine = build_engine(sqlite_file)
    writes = write_transactions_for(engine)
    started, release = threading.Event(), threading.Event()
    try:
        await writes.run(_create_marks)
        blocker = asyncio.create_task(writes.run(_blocking_write(started, release)))
        await asyncio.to_thread(started.wait, 5)
        queued = asyncio.create_task(writes.run(_mark("queued")))
        await asyncio.sleep(0.01)
        queued.cancel()
        release.set()
        await blocker
        with pytest.raises(asyncio.CancelledError):
            await queued
        await writes.run(lambda conn: None)  # behind it on the one thread
    finally:
        await writes.close()
        await engine.dispose()
    assert await _marks(sqlite_file) == ["queued"]
