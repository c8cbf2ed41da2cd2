"""PostgreSQL's ``LISTEN``/``NOTIFY`` for session events across coordinators: each transaction that appends a
session's events notifies ``CHANNEL`` with the session id (delivered at commit), and ``listen_for_events`` hands
each notification to a callback (the event feed's ``wake``), so a subscriber on one coordinator reads what another
wrote at once rather than at its next poll. Polling stays the fallback (a lost listener connection, SQLite)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import psycopg
import structlog
from sqlalchemy import Connection, func, select

from coordinator.infrastructure.persistence.engine import normalize_database_url
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)

CHANNEL = "coordinator_session_events"


def notify_events(conn: Connection, session_id: str) -> None:
    """Inside a write transaction: tell the listeners ``session_id`` has new events (PostgreSQL only)."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_notify(CHANNEL, session_id)))


@asynccontextmanager
async def listen_for_events(database_url: str, wake: Callable[[str], None]) -> AsyncIterator[None]:
    """Calls ``wake(session_id)`` for each notification while open; nothing on another database, or when the
    listener cannot connect or loses its connection (logged: the feed polls)."""
    url = normalize_database_url(database_url)
    if url.get_backend_name() != "postgresql":
        yield
        return
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        await conn.execute(f"LISTEN {CHANNEL}")
    except Exception as exc:
        log.warning("session_events_not_listened", error=error_text(exc))
        yield
        return

    async def relay() -> None:
        try:
            async for note in conn.notifies():
                wake(note.payload)
        except Exception as exc:
            log.warning("session_events_listener_lost", error=error_text(exc))

    relaying = asyncio.create_task(relay(), name="session-events-listener")
    try:
        yield
    finally:
        relaying.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await relaying
        await conn.close()
