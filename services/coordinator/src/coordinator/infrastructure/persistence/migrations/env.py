"""Alembic environment (async): the service runs it at start through ``run_migrations`` on a shared
connection; a developer can also run the CLI with the ``alembic.ini`` next to this file, e.g.
``DATABASE_URL=sqlite+aiosqlite:///data/coordinator.db uv run alembic -c <this dir>/alembic.ini upgrade head``."""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from coordinator.infrastructure.persistence.engine import build_engine, normalize_database_url
from coordinator.infrastructure.persistence.tables import Base

config = context.config
target_metadata = Base.metadata

if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name)  # CLI only: the service has its own logging


def _database_url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL")
    if not url:
        raise RuntimeError("Set DATABASE_URL (or sqlalchemy.url) to run the coordinator's migrations.")
    return url


def _configure_and_run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_online_own_engine() -> None:
    engine = build_engine(_database_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_configure_and_run)
            await connection.commit()
    finally:
        await engine.dispose()


def _run_offline() -> None:
    context.configure(
        url=normalize_database_url(_database_url()),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
elif (shared := config.attributes.get("connection")) is not None:
    _configure_and_run(shared)
else:
    asyncio.run(_run_online_own_engine())
