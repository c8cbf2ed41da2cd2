"""LangGraph's checkpointer for the research graph, on the sessions' database: ``AsyncSqliteSaver`` in a file beside
the SQLite store (``coordinator.db`` → ``coordinator-checkpoints.db``), ``AsyncPostgresSaver`` in the same
PostgreSQL database (its own tables, created by ``setup()``), and an in-memory saver for an in-memory store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from sqlalchemy import URL

from coordinator.infrastructure.persistence.engine import (
    SQLITE_BUSY_TIMEOUT_S,
    is_sqlite_memory,
    normalize_database_url,
)

# The state's own types, read back from a checkpoint (LangGraph deserialises only the types it is told of).
STATE_TYPES = [
    ("coordinator.domain.model.session", "ExpertOutcome"),
    ("coordinator.domain.model.session", "StageOutcome"),
    ("coordinator.domain.dtos.research_dtos", "ExpertFailure"),
]
POOL_SIZE = 10


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
        async with aiosqlite.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S) as conn:
            await conn.execute("PRAGMA journal_mode=WAL")
            # As the sessions store (engine.sqlite_pragmas): a commit survives the process crashing, fsync at
            # checkpoints only (a research commits a dozen checkpoints and writes).
            await conn.execute("PRAGMA synchronous=NORMAL")
            saver = AsyncSqliteSaver(conn, serde=serializer())
            await saver.setup()
            yield saver
    else:
        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        options = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
        async with AsyncConnectionPool(conninfo, max_size=POOL_SIZE, kwargs=options, open=False) as pool:
            saver_pg = AsyncPostgresSaver(pool, serde=serializer())  # type: ignore[arg-type]
            await saver_pg.setup()
            yield saver_pg
