"""A PostgreSQL that stops answering fails a call in bounded time (a 503 for the caller), instead of holding
the request and the lease renewal until it answers again; a store unusable at start is named in one line,
and one down at shutdown does not fail the shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from coordinator_persistence_fakes import local_postgres_database, make_session, pg_admin
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence import engine as engine_module
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.instances import InstanceLease
from coordinator.infrastructure.persistence.migrate import run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.infrastructure.persistence.write_transactions import STORE_ERRORS
from service_kit.logging import configure_logging, flush_logs


async def test_a_database_that_accepts_and_never_answers_fails_the_call_at_the_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # accepts the connection, reads nothing, answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setattr(engine_module, "POSTGRES_CONNECT_TIMEOUT_S", 0.3)
    engine = build_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{port}/test")
    store = SqlAlchemySessionRepository(engine)
    started = asyncio.get_running_loop().time()
    try:
        with pytest.raises(SessionStoreUnavailableError, match="TimeoutError"):
            await store.get("00000000-0000-0000-0000-000000000000")
    finally:
        await store.close()
        await engine.dispose()
        for writer in held:
            writer.close()
        server.close()
    assert asyncio.get_running_loop().time() - started < 3


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with local_postgres_database() as url:
        yield url


async def test_a_statement_postgresql_does_not_finish_fails_at_the_command_timeout(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "POSTGRES_COMMAND_TIMEOUT_S", 0.3)
    engine = build_engine(postgres_url)
    started = asyncio.get_running_loop().time()
    try:
        with pytest.raises(STORE_ERRORS):
            async with engine.connect() as conn:
                await conn.execute(text("SELECT pg_sleep(5)"))
    finally:
        await engine.dispose()
    assert asyncio.get_running_loop().time() - started < 3
    assert engine.pool.timeout() == engine_module.POOL_WAIT_TIMEOUT_S  # type: ignore[attr-defined]


async def test_a_store_unusable_at_start_is_named_in_one_line() -> None:
    url = "postgresql+asyncpg://postgres:secret@127.0.0.1:1/nowhere"
    with pytest.raises(SessionStoreUnavailableError) as caught:
        await open_session_store(url)
    message = str(caught.value)
    assert message.startswith(
        "The session store (DATABASE_URL=postgresql+asyncpg://postgres:***@127.0.0.1:1/nowhere) is not usable: "
    )
    assert "Connect call failed" in message or "refused" in message.lower()
    assert "secret" not in message


async def test_a_store_down_at_shutdown_does_not_fail_the_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("INFO", json=True, service="coordinator")
    _, close = await open_session_store(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}")

    async def store_down(self: InstanceLease) -> int:
        raise OperationalError("UPDATE research_sessions ...", {}, ConnectionRefusedError("connection refused"))

    monkeypatch.setattr(InstanceLease, "stop", store_down)
    await close()  # no exception: the engine is disposed of all the same
    flush_logs()
    assert "session_store_release_failed" in capsys.readouterr().err


async def test_a_database_refusing_connections_is_unavailable_and_a_final_status_waits_for_it(
    postgres_url: str,
) -> None:
    """PostgreSQL refusing connections (here: ALLOW_CONNECTIONS false; also too many connections, shutting
    down) answers with errors SQLAlchemy maps to no subclass: they were 500s, and a session finishing then
    stayed `running` for good."""
    database = postgres_url.rsplit("/", 1)[1]
    user = postgres_url.split("//", 1)[1].split("@", 1)[0]
    engine = build_engine(postgres_url)
    await run_migrations(engine)
    store = SqlAlchemySessionRepository(engine)
    session = make_session()
    try:
        await store.create(session)
        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        await pg_admin(user, f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'")
        await engine.dispose()  # no pooled connection left: every call connects
        with pytest.raises(SessionStoreUnavailableError, match="The session store is unavailable") as refused:
            await store.get(session.session_id)
        assert database not in str(refused.value)  # a fixed text: the server's words stay in the log
        with pytest.raises(SessionStoreUnavailableError):
            await store.finish(session.session_id, "completed")

        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        assert await store.write_unwritten_finishes() == 1
        stored = await store.get(session.session_id)
        assert stored is not None
        assert stored.status == "completed"
    finally:
        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        await store.close()
        await engine.dispose()


async def test_a_batch_submitted_while_the_database_refuses_connections_is_unavailable_not_stored(
    postgres_url: str,
) -> None:
    """The batches' store on the same database: refused connections are ``SessionStoreUnavailableError`` (503 at
    the edge) for a submission and for a claim, and nothing is half stored."""
    from datetime import date

    from coordinator.domain.model.batch import Batch
    from coordinator.infrastructure.persistence.batch_store import SqlAlchemyBatchStore

    database = postgres_url.rsplit("/", 1)[1]
    user = postgres_url.split("//", 1)[1].split("@", 1)[0]
    engine = build_engine(postgres_url)
    await run_migrations(engine)
    store = SqlAlchemyBatchStore(engine)
    batch = Batch("b-refused", date(2025, 6, 30), ["technical_analyst"], 1)
    item = make_session()
    item.batch_id, item.batch_position, item.status = batch.batch_id, 0, "queued"
    try:
        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        await pg_admin(user, f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'")
        await engine.dispose()
        with pytest.raises(SessionStoreUnavailableError, match="The session store is unavailable"):
            await store.create(batch, [item])
        with pytest.raises(SessionStoreUnavailableError):
            await store.claim_chunk("owner", 10)
        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        assert await store.get(batch.batch_id) is None
        assert await store.waiting_items() == 0
    finally:
        await pg_admin(user, f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        await store.close()
        await engine.dispose()


async def test_a_row_locked_elsewhere_past_the_lock_timeout_is_unavailable_not_a_wait(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session row another transaction holds (``SELECT … FOR UPDATE``, never committed): the session's end fails at
    the lock timeout (55P03) as unavailable, and is written once the lock is gone."""
    import asyncpg

    monkeypatch.setattr(engine_module, "POSTGRES_LOCK_TIMEOUT_S", 0.5)
    engine = build_engine(postgres_url)
    await run_migrations(engine)
    store = SqlAlchemySessionRepository(engine)
    session = make_session()
    holder = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        await store.create(session)
        locking = holder.transaction()
        await locking.start()
        await holder.execute("SELECT 1 FROM research_sessions WHERE session_id = $1 FOR UPDATE", session.session_id)
        started = asyncio.get_running_loop().time()
        with pytest.raises(SessionStoreUnavailableError):
            await store.finish(session.session_id, "completed")
        seconds = asyncio.get_running_loop().time() - started
        await locking.rollback()
        assert await store.write_unwritten_finishes() == 1
        stored = await store.get(session.session_id)
    finally:
        await holder.close()
        await store.close()
        await engine.dispose()
    assert seconds < 3
    assert stored is not None
    assert stored.status == "completed"
