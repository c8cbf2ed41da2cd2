"""How the store is read and written (``SqlAlchemyStore``, the base of the session repository and the instance
store). A write is a function of a synchronous ``Connection`` that executes a stage's statements, run as one
transaction and committed before the awaiting coroutine resumes. A database that cannot serve now is a
``SessionStoreUnavailableError`` (503).

Two runners share that shape, so the statements are written once:

- ``AsyncEngineWrites`` (PostgreSQL, in-memory SQLite): the function runs through the async engine
  (``AsyncConnection.run_sync``). On SQLite an ``asyncio.Lock`` orders this process's writers: a second
  SQLite writer would otherwise wait in SQLite's busy handler, which sleeps in steps of up to 100 ms.
- ``SqliteWriterThread`` (a SQLite file): the function runs on a thread of its own with the standard
  library's driver (through aiosqlite every begin, statement and commit would be a hand-off to its thread
  and back); the one thread also orders the writes. Writes asked for while a transaction is committing are
  committed together in the next one (group commit); each caller still resumes only after its write is
  committed, and when a group's transaction fails its writes are run again one by one, so a failing write
  fails only its own caller (a database that cannot serve now, locked by another process past the busy timeout,
  fails the whole group at once). Reads asked for with ``read`` run on two threads of their own with the same
  driver (WAL: they do not wait for the writer), one hand-off each instead of aiosqlite's several.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import structlog
from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence.engine import (
    JSON_COLUMNS,
    READ_ONLY_SQLSTATE,
    SQLITE_BUSY_TIMEOUT_S,
    is_sqlite_memory,
    sqlite_pragmas,
)
from service_kit.tracing import untraced

log = structlog.get_logger(__name__)

T = TypeVar("T")
Statements = Callable[[Connection], T]
STORE_ERRORS = (OperationalError, InterfaceError, OSError)
# What else the driver reports for a database that cannot serve us now (asyncpg's errors SQLAlchemy maps to
# no subclass): SQLSTATE classes 08 connection, 28 authorization, 3D no such database, 53 resources (too many
# connections), 57 operator intervention (shutting down, not accepting connections yet), 55000 "database
# does not allow connections", 25006 a read-only transaction (a demoted primary, default_transaction_read_only)
# and 55P03 a lock not available (lock_timeout).
UNAVAILABLE_SQLSTATE_CLASSES = ("08", "28", "3D", "53", "57")
UNAVAILABLE_SQLSTATES = frozenset({"55000", READ_ONLY_SQLSTATE, "55P03"})
# Threads reading a SQLite file (each with its own connection): two keep a read going while another's Python
# runs, more only contend for the GIL with the event loop.
READER_THREADS = 2


def is_store_unavailable(exc: BaseException) -> bool:
    if isinstance(exc, STORE_ERRORS):
        return True
    return unavailable_sqlstate(getattr(exc.orig, "sqlstate", None) if isinstance(exc, DBAPIError) else None)


def unavailable_sqlstate(state: object) -> bool:
    """Whether a driver's SQLSTATE says the database cannot serve us now (rather than that the statement is wrong)."""
    return isinstance(state, str) and (state[:2] in UNAVAILABLE_SQLSTATE_CLASSES or state in UNAVAILABLE_SQLSTATES)


def _unavailable(exc: Exception) -> SessionStoreUnavailableError:
    """A fixed text naming only the driver's error class: the driver's message (``role "…" is not permitted to
    log in``, a host, a database name) is logged, redacted, never answered; SQLAlchemy's has the statement too."""
    cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    reason = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    log.warning("session_store_unavailable", error=type(cause).__name__, reason=reason[:300])
    return SessionStoreUnavailableError(f"The session store is unavailable ({type(cause).__name__}); retry later.")


class SqlAlchemyStore:
    """Reads through the async engine and the ORM, writes through ``writes`` (shared by the stores of one
    database; by default its own). Call ``close()`` before disposing of the engine."""

    def __init__(self, engine: AsyncEngine, writes: WriteTransactions | None = None) -> None:
        self._engine = engine
        self._sessionmaker = async_sessionmaker(engine, expire_on_commit=False)
        self._writes = writes or write_transactions_for(engine)

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    @property
    def writes(self) -> WriteTransactions:
        """The write runner, to share with another store of the same database."""
        return self._writes

    async def close(self) -> None:
        await self._writes.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        """A read transaction through the ORM."""
        with _unavailable_when_down():
            async with self._sessionmaker.begin() as db:
                yield db

    async def _write(self, statements: Statements[T]) -> T:
        with _unavailable_when_down():
            return await self._writes.run(statements)

    async def _read(self, statements: Statements[T]) -> T:
        """A read through Core statements, on the cheapest path the database has (``WriteTransactions.read``)."""
        with _unavailable_when_down():
            return await self._writes.read(statements)


@contextmanager
def _unavailable_when_down() -> Iterator[None]:
    """A database that cannot serve now, raised inside, becomes ``SessionStoreUnavailableError``; other errors pass."""
    try:
        yield
    except (*STORE_ERRORS, DBAPIError) as exc:
        if not is_store_unavailable(exc):
            raise
        raise _unavailable(exc) from exc


class WriteTransactions(Protocol):
    async def run(self, statements: Statements[T]) -> T:
        """Run ``statements`` in one transaction; it is committed when this returns."""
        ...

    async def read(self, statements: Statements[T]) -> T:
        """Run ``statements`` (reads only) in a transaction of their own, which sees every committed write."""
        ...

    async def close(self) -> None: ...


class AsyncEngineWrites:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._lock = asyncio.Lock() if engine.dialect.name == "sqlite" else None

    async def run(self, statements: Statements[T]) -> T:
        async with self._lock or contextlib.nullcontext(), self._engine.begin() as conn:
            return await conn.run_sync(statements)

    async def read(self, statements: Statements[T]) -> T:
        async with self._engine.connect() as conn:
            return await conn.run_sync(statements)

    async def close(self) -> None:
        """The engine belongs to the caller, who disposes of it."""


@dataclass
class _QueuedWrite(Generic[T]):
    statements: Statements[T]
    future: asyncio.Future[T]


class SqliteWriterThread:
    def __init__(self, url: URL) -> None:
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False}
        self._engine: Engine = create_engine(
            url.set(drivername="sqlite+pysqlite"), connect_args=connect_args, **JSON_COLUMNS
        )
        event.listen(self._engine, "connect", sqlite_pragmas)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="session-writes")
        self._readers = ThreadPoolExecutor(max_workers=READER_THREADS, thread_name_prefix="session-reads")
        self._queued: list[_QueuedWrite[Any]] = []
        self._queued_lock = threading.Lock()

    async def run(self, statements: Statements[T]) -> T:
        """A write that was asked for is committed even if the awaiting coroutine is cancelled."""
        write: _QueuedWrite[T] = _QueuedWrite(statements, asyncio.get_running_loop().create_future())
        with self._queued_lock:
            self._queued.append(write)
            first_in_queue = len(self._queued) == 1
        if first_in_queue:  # otherwise a commit of the queue is already scheduled and will take this one
            self._thread.submit(_without_spans, self._commit_queued)
        return await write.future

    async def read(self, statements: Statements[T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._readers, self._read_now, statements)

    def _read_now(self, statements: Statements[T]) -> T:
        with untraced(), self._engine.connect() as conn:
            return statements(conn)

    def _commit_queued(self) -> None:
        with self._queued_lock:
            group, self._queued = self._queued, []
        try:
            with self._engine.begin() as conn:
                outcomes = [_Outcome(write, write.statements(conn)) for write in group]
        except Exception as exc:
            # A database that cannot serve now (locked by another process: the busy timeout ran out) fails the
            # whole group at once; running its writes one by one would wait that timeout again for each.
            alone = len(group) == 1 or is_store_unavailable(exc)
            outcomes = [_Outcome(w, error=exc) for w in group] if alone else [self._commit_alone(w) for w in group]
        for loop in {o.write.future.get_loop() for o in outcomes}:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(_settle, [o for o in outcomes if o.write.future.get_loop() is loop])

    def _commit_alone(self, write: _QueuedWrite[Any]) -> _Outcome:
        try:
            with self._engine.begin() as conn:
                return _Outcome(write, write.statements(conn))
        except Exception as exc:
            return _Outcome(write, error=exc)

    async def close(self) -> None:
        """Commits what is queued, lets the reads under way end, then closes the connections and stops the
        threads."""
        await asyncio.get_running_loop().run_in_executor(self._thread, self._readers.shutdown)
        await asyncio.get_running_loop().run_in_executor(self._thread, self._engine.dispose)
        self._thread.shutdown(wait=True)


@dataclass
class _Outcome:
    write: _QueuedWrite[Any]
    result: Any = None
    error: Exception | None = None


def _without_spans(commit: Callable[[], None]) -> None:
    """Runs ``commit`` without spans (``untraced``): a commit groups the writes of several requests."""
    with untraced():
        commit()


def _settle(outcomes: list[_Outcome]) -> None:
    for outcome in outcomes:
        future = outcome.write.future
        if future.done():  # its caller was cancelled; the write is committed all the same
            continue
        if outcome.error is not None:
            future.set_exception(outcome.error)
        else:
            future.set_result(outcome.result)


def write_transactions_for(engine: AsyncEngine) -> WriteTransactions:
    if engine.dialect.name == "sqlite" and not is_sqlite_memory(engine.url):
        return SqliteWriterThread(engine.url)
    return AsyncEngineWrites(engine)
