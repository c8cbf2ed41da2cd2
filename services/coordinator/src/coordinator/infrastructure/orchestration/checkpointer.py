"""LangGraph's checkpointer for the research graph, on the sessions' database: LangGraph's ``SqliteSaver`` in a file
beside the SQLite store (``coordinator.db`` → ``coordinator-checkpoints.db``), run on a thread of its own
(``SqliteSaverOnThread``), ``AsyncPostgresSaver`` in the same PostgreSQL database (its own tables, created by
``setup()``), and an in-memory saver for an in-memory store."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import structlog
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from psycopg import AsyncCursor
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool
from sqlalchemy import URL

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence.engine import (
    POOL_WAIT_TIMEOUT_S,
    READ_ONLY_SQLSTATE,
    SQLITE_BUSY_TIMEOUT_S,
    is_sqlite_memory,
    normalize_database_url,
)
from coordinator.infrastructure.persistence.write_transactions import unavailable_sqlstate
from shared_contracts.redaction import error_text

# The state's own types, read back from a checkpoint (LangGraph deserialises only the types it is told of).
STATE_TYPES = [
    ("coordinator.domain.model.session", "ExpertOutcome"),
    ("coordinator.domain.model.session", "StageOutcome"),
    ("coordinator.domain.dtos.research_dtos", "ExpertFailure"),
]
POOL_SIZE = 10
log = structlog.get_logger(__name__)


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


def checkpoint_file(url: URL) -> Path:
    assert url.database is not None
    database = Path(url.database).expanduser()
    return database.with_name(f"{database.stem}-checkpoints{database.suffix or '.db'}")


@asynccontextmanager
async def open_checkpointer(database_url: str | URL) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    url = normalize_database_url(database_url)
    if is_sqlite_memory(url):
        yield InMemorySaver(serde=serializer())
    elif url.get_backend_name() == "sqlite":
        path = checkpoint_file(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        saver = await SqliteSaverOnThread.open(path)
        try:
            yield saver
        finally:
            await saver.close()
    else:
        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        # A checkpoint's commit does not wait for the server's WAL flush (synchronous_commit=off, these connections
        # only): it is visible at once and survives this coordinator dying; a PostgreSQL crash may lose the last
        # few hundred milliseconds of checkpoints, and a resume then runs those stages again (as with
        # ``durability="async"``). The sessions' own writes keep the server's setting.
        options = {
            "autocommit": True,
            "prepare_threshold": 0,
            "row_factory": dict_row,
            "options": "-c synchronous_commit=off",
        }
        # Each connection is checked before it is handed out (a connection the server ended is replaced), and one is
        # waited for no longer than the sessions' engine waits for its own.
        pool = AsyncConnectionPool(
            conninfo,
            max_size=POOL_SIZE,
            kwargs=options,
            open=False,
            check=AsyncConnectionPool.check_connection,
            timeout=POOL_WAIT_TIMEOUT_S,
        )
        async with pool:
            saver_pg = PostgresSaverOnPool(pool, serde=serializer())
            await _set_up_alone(pool, saver_pg)
            yield saver_pg


_PG_SETUP_LOCK = 0x636B7074  # "ckpt": replicas starting together on one database set the tables up one at a time


async def _set_up_alone(pool: AsyncConnectionPool[Any], saver: AsyncPostgresSaver) -> None:
    """LangGraph's ``setup()`` (its tables and its own migrations) under a PostgreSQL advisory lock: two coordinators
    starting at once would otherwise both insert the same migration row, and one of them would fail to start. The
    lock is tried, not waited for: a session waiting in ``pg_advisory_lock`` holds a snapshot, which the holder's
    ``CREATE INDEX CONCURRENTLY`` would wait for in turn."""
    async with pool.connection() as conn:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s) AS taken", (_PG_SETUP_LOCK,))
            row = await cursor.fetchone()
            if row is not None and row["taken"]:
                break
            await asyncio.sleep(0.05)
        try:
            await saver.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_PG_SETUP_LOCK,))


class PostgresSaverOnPool(AsyncPostgresSaver):
    """LangGraph's ``AsyncPostgresSaver`` on a connection pool, whose errors for a database that cannot serve now
    (connection lost, read-only, not accepting connections, no connection free in time) are
    ``SessionStoreUnavailableError`` (503), as the sessions store's are. A read-only answer also drains the pool:
    its connections keep the read-only default they started with, new ones take the database's current one."""

    def __init__(self, pool: AsyncConnectionPool[Any], *, serde: JsonPlusSerializer) -> None:
        super().__init__(pool, serde=serde)
        self._pool = pool

    @asynccontextmanager
    async def _cursor(self, *, pipeline: bool = False) -> AsyncIterator[AsyncCursor[DictRow]]:
        try:
            async with super()._cursor(pipeline=pipeline) as cur:
                yield cur
        except psycopg.Error as exc:
            if not isinstance(exc, psycopg.OperationalError) and not unavailable_sqlstate(exc.sqlstate):
                raise
            if exc.sqlstate == READ_ONLY_SQLSTATE:
                await self._pool.drain()
            log.warning("checkpointer_store_unavailable", error=type(exc).__name__, sqlstate=exc.sqlstate)
            message = f"The session store is unavailable ({type(exc).__name__}); retry later."
            raise SessionStoreUnavailableError(message) from exc


class SqliteSaverOnThread(SqliteSaver):
    """LangGraph's ``SqliteSaver`` (its tables, its statements) with its async methods run on one thread of its own,
    in the order they are asked for; the calls asked for while a transaction commits are committed together in the
    next one (the experts of one research end together, and so do the researches of a burst). A group whose
    transaction fails is run again call by call, so a failing call fails only itself (every statement of the saver is
    an ``INSERT OR REPLACE``/``IGNORE``, a ``DELETE`` or a read: running one again is harmless).

    A checkpoint or a task's writes (``aput``, ``aput_writes``) is handed to the thread and not waited for: the run
    goes on at once, and its checkpoints are committed a moment later, as on PostgreSQL with
    ``synchronous_commit=off`` (a coordinator that dies in that moment loses them, and a resume runs that stage
    again); one that cannot be written is logged. A read or a deletion (``aget_tuple``, ``alist``,
    ``adelete_thread``) waits for its answer, after every write asked for before it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn, serde=serializer())
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint-writes")
        self._queued: list[tuple[Callable[[], Any], asyncio.Future[Any] | None]] = []  # a call, its caller's future
        self._queued_lock = threading.Lock()

    @classmethod
    async def open(cls, path: Path) -> SqliteSaverOnThread:
        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            # As the sessions store (engine.sqlite_pragmas): a commit survives the process crashing, fsync at
            # WAL checkpoints only (a research commits a dozen checkpoints and writes).
            conn.execute("PRAGMA synchronous=NORMAL")
            return conn

        saver = cls(await asyncio.to_thread(connect))
        await saver._run(saver.setup)
        return saver

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._thread, self.conn.close)
        self._thread.shutdown(wait=True)

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        """The saver's cursor; the commit is the group's (``_commit_queued``)."""
        with self.lock:
            self.setup()
            cur = self.conn.cursor()
            try:
                yield cur
            finally:
                cur.close()

    async def _run(self, call: Callable[[], Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue(call, future)
        return await future

    def _queue(self, call: Callable[[], Any], future: asyncio.Future[Any] | None) -> None:
        with self._queued_lock:
            self._queued.append((call, future))
            first_in_queue = len(self._queued) == 1
        if first_in_queue:  # otherwise a commit of the queue is already scheduled and will take this one
            self._thread.submit(self._commit_queued)

    def _commit_queued(self) -> None:
        with self._queued_lock:
            group, self._queued = self._queued, []
        try:
            outcomes = [_Outcome(future, call()) for call, future in group]
            self.conn.commit()
        except Exception as exc:
            self.conn.rollback()
            outcomes = (
                [_Outcome(group[0][1], error=exc)] if len(group) == 1 else [self._commit_alone(*g) for g in group]
            )
        for outcome in outcomes:
            if outcome.future is None and outcome.error is not None:
                log.warning("checkpoint_not_written", error=error_text(outcome.error))
        awaited = [o for o in outcomes if o.future is not None]
        for loop in {o.future.get_loop() for o in awaited if o.future is not None}:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(_settle, [o for o in awaited if o.future and o.future.get_loop() is loop])

    def _commit_alone(self, call: Callable[[], Any], future: asyncio.Future[Any] | None) -> _Outcome:
        try:
            result = call()
            self.conn.commit()
            return _Outcome(future, result)
        except Exception as exc:
            self.conn.rollback()
            return _Outcome(future, error=exc)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self._run(lambda: self.get_tuple(config))  # type: ignore[no-any-return]

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,  # the saver's own signature
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found = await self._run(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        self._queue(lambda: self.put(config, checkpoint, metadata, new_versions), None)
        where = config["configurable"]  # LangGraph's own address of a checkpoint: thread, namespace, id
        thread = {key: where[key] for key in ("thread_id", "checkpoint_ns")}
        return {"configurable": {**thread, "checkpoint_id": checkpoint["id"]}}  # what ``put`` returns

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        self._queue(lambda: self.put_writes(config, writes, task_id, task_path), None)

    async def adelete_thread(self, thread_id: str) -> None:
        await self._run(lambda: self.delete_thread(thread_id))


@dataclass
class _Outcome:
    future: asyncio.Future[Any] | None
    result: Any = None
    error: Exception | None = None


def _settle(outcomes: list[_Outcome]) -> None:
    for outcome in outcomes:
        if outcome.future is None or outcome.future.done():  # its caller was cancelled; the call has run all the same
            continue
        if outcome.error is not None:
            outcome.future.set_exception(outcome.error)
        else:
            outcome.future.set_result(outcome.result)
