"""The async engine for the sessions store, from ``DATABASE_URL`` — the same code path for SQLite
(embedded default: a file under the data directory, created on first use) and PostgreSQL (asyncpg).
``create_async_engine`` is looked up when called, so that the SQLAlchemy instrumentation of tracing, which
replaces it at start-up, sees the engine's statements."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import URL, event, make_url
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.ext import asyncio as sqlalchemy_asyncio
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import StaticPool

_ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
# How long a SQLite statement waits for a lock another process holds before the store is unavailable (503): writes
# are grouped on one thread (write_transactions), so a caller waits at most about twice this.
SQLITE_BUSY_TIMEOUT_S = 2.0
# PostgreSQL: a database that stops answering fails a request in bounded time (503) instead of holding it.
POSTGRES_CONNECT_TIMEOUT_S = 5.0
POSTGRES_COMMAND_TIMEOUT_S = 30.0
# A row or table lock held elsewhere longer than this fails the statement (55P03: 503) instead of holding the request;
# the migrations at start wait for each other without it.
POSTGRES_LOCK_TIMEOUT_S = 4.0
POOL_WAIT_TIMEOUT_S = 10.0
READ_ONLY_SQLSTATE = "25006"


def normalize_database_url(database_url: str | URL) -> URL:
    """``sqlite:///x.db`` → ``sqlite+aiosqlite:///x.db``, ``postgres(ql)://`` → ``postgresql+asyncpg://``.

    Raises ``ValueError`` for another backend or a synchronous driver (the service is async only)."""
    url = make_url(database_url)
    if url.drivername in _ASYNC_DRIVERS:
        url = url.set(drivername=_ASYNC_DRIVERS[url.drivername])
    if url.drivername not in ("sqlite+aiosqlite", "postgresql+asyncpg"):
        raise ValueError(
            f"DATABASE_URL uses {url.drivername!r}; use sqlite+aiosqlite:///path/to/file.db "
            "or postgresql+asyncpg://user:password@host:5432/dbname"
        )
    return url


def is_sqlite_memory(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def json_dumps(value: Any) -> str:
    """The JSON columns' serializer: orjson (a batch writes megabytes of expert results per chunk), the standard
    library for what orjson refuses (keys that are not strings, integers beyond 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


JSON_COLUMNS: dict[str, Any] = {"json_serializer": json_dumps, "json_deserializer": orjson.loads}
"""The engines' JSON column options (every engine on the sessions' database)."""


def build_engine(database_url: str | URL) -> AsyncEngine:
    url = normalize_database_url(database_url)
    if url.get_backend_name() != "sqlite":
        timeouts = {
            "timeout": POSTGRES_CONNECT_TIMEOUT_S,
            "command_timeout": POSTGRES_COMMAND_TIMEOUT_S,
            "server_settings": {"lock_timeout": f"{round(POSTGRES_LOCK_TIMEOUT_S * 1000)}ms"},
        }
        pg_engine = sqlalchemy_asyncio.create_async_engine(
            url, pool_pre_ping=True, pool_timeout=POOL_WAIT_TIMEOUT_S, connect_args=timeouts, **JSON_COLUMNS
        )
        event.listen(pg_engine.sync_engine, "handle_error", read_only_is_a_disconnect)
        return pg_engine
    kwargs: dict[str, Any] = {"connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_S}, **JSON_COLUMNS}
    if is_sqlite_memory(url):
        # One shared connection, or every connection would see its own empty database.
        kwargs["poolclass"] = StaticPool
    else:
        assert url.database is not None
        Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = sqlalchemy_asyncio.create_async_engine(url, **kwargs)
    event.listen(engine.sync_engine, "connect", sqlite_pragmas)
    return engine


def read_only_is_a_disconnect(context: ExceptionContext) -> None:
    """A read-only transaction (SQLSTATE 25006: the database was demoted, or made read-only) invalidates the pool,
    as a lost connection does: the connections that had it are replaced, so a database writable again is written
    through new sessions (an existing session keeps the read-only default it started with)."""
    if getattr(context.original_exception, "sqlstate", None) == READ_ONLY_SQLSTATE:
        context.is_disconnect = True


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # WAL: readers (history queries) never block the writer committing a stage, and vice versa.
    cursor.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the process
    # crashing (the WAL is in the OS), only a power cut can lose the last ones. FULL costs an fsync
    # per stage of every research; the production store is PostgreSQL.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def describe(database_url: str | URL) -> str:
    """The URL with its password hidden, for logs."""
    return normalize_database_url(database_url).render_as_string(hide_password=True)
