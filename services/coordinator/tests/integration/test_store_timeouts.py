"""A PostgreSQL that stops answering fails a call in bounded time (a 503 for the caller), instead of holding
the request and the lease renewal until it answers again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from coordinator_persistence_fakes import local_postgres_database
from sqlalchemy import text

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence import engine as engine_module
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.session_repository import STORE_ERRORS, SqlAlchemySessionRepository


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
