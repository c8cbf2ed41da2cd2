"""How the session repository runs a write: a function of a synchronous ``Connection`` that executes a
stage's statements, run as one transaction and committed before the awaiting coroutine resumes.

Two runners share that shape, so the statements are written once:

- ``AsyncEngineWrites`` (PostgreSQL, in-memory SQLite): the function runs through the async engine
  (``AsyncConnection.run_sync``). On SQLite an ``asyncio.Lock`` orders this process's writers: a second
  SQLite writer would otherwise wait in SQLite's busy handler, which sleeps in steps of up to 100 ms.
- ``SqliteWriterThread`` (a SQLite file): the function runs on a thread of its own with the standard
  library's driver, one hand-off per transaction. Through aiosqlite every begin, statement and commit is
  a separate hand-off to its thread and back, which cost several times the statements themselves
  (benchmarks/README.md). One thread also orders the writes, as the lock does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.ext.asyncio import AsyncEngine

from coordinator.infrastructure.persistence.engine import (
    SQLITE_BUSY_TIMEOUT_S,
    is_sqlite_memory,
    sqlite_pragmas,
)

T = TypeVar("T")
Statements = Callable[[Connection], T]


class WriteTransactions(Protocol):
    async def run(self, statements: Statements[T]) -> T:
        """Run ``statements`` in one transaction; it is committed when this returns."""
        ...

    async def close(self) -> None: ...


class AsyncEngineWrites:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._lock = asyncio.Lock() if engine.dialect.name == "sqlite" else None

    async def run(self, statements: Statements[T]) -> T:
        async with self._lock or contextlib.nullcontext(), self._engine.begin() as conn:
            return await conn.run_sync(statements)

    async def close(self) -> None:
        """The engine belongs to the caller, who disposes of it."""


class SqliteWriterThread:
    def __init__(self, url: URL) -> None:
        self._engine: Engine = create_engine(
            url.set(drivername="sqlite+pysqlite"),
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False},
        )
        event.listen(self._engine, "connect", sqlite_pragmas)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="session-writes")

    async def run(self, statements: Statements[T]) -> T:
        """A write that has started finishes (and commits) even if the awaiting coroutine is cancelled."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._transaction, statements)

    def _transaction(self, statements: Statements[T]) -> T:
        with self._engine.begin() as conn:
            return statements(conn)

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._thread, self._engine.dispose)
        self._thread.shutdown(wait=True)


def write_transactions_for(engine: AsyncEngine) -> WriteTransactions:
    if engine.dialect.name == "sqlite" and not is_sqlite_memory(engine.url):
        return SqliteWriterThread(engine.url)
    return AsyncEngineWrites(engine)
