"""Apply the Alembic migrations shipped in ``migrations/`` (up to head) — at every start, idempotent."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from coordinator.infrastructure.persistence.engine import build_engine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Any constant: replicas starting together on one PostgreSQL database migrate one after the other.
_PG_MIGRATION_LOCK = 0x636F6F7264  # "coord"


def alembic_config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def _upgrade_head(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SET LOCAL lock_timeout = 0"))  # another replica's migration may take longer
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    command.upgrade(alembic_config(connection), "head")


async def run_migrations(database: str | URL | AsyncEngine) -> None:
    """Bring the database at ``database`` (a ``DATABASE_URL`` or an engine) to the newest revision.

    For SQLite the parent directory of the file is created. Runs in one transaction (on PostgreSQL,
    DDL is transactional and an advisory lock serializes concurrent starts)."""
    engine = database if isinstance(database, AsyncEngine) else build_engine(database)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade_head)
    finally:
        if engine is not database:
            await engine.dispose()
