"""Opening the sessions store at start-up: one call for the coordinator's lifespan."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

from coordinator.infrastructure.persistence.engine import build_engine, describe
from coordinator.infrastructure.persistence.migrate import run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository

log = structlog.get_logger(__name__)

CloseStore = Callable[[], Awaitable[None]]


async def open_session_store(database_url: str) -> tuple[SqlAlchemySessionRepository, CloseStore]:
    """Migrate the database to head, build the engine, and mark the sessions a previous coordinator
    left ``running`` (it died mid-session) as ``interrupted``, which makes them retryable.

    Returns the repository and the coroutine function that closes it (disposes the engine).

    Note: every ``running`` row is interrupted, so with several replicas on one PostgreSQL database a
    replica that starts while another serves a research marks that one interrupted too."""
    engine = build_engine(database_url)
    repository: SqlAlchemySessionRepository | None = None

    async def close() -> None:
        if repository is not None:
            await repository.close()
        await engine.dispose()

    try:
        await run_migrations(engine)
        repository = SqlAlchemySessionRepository(engine)
        interrupted = await repository.mark_running_as_interrupted()
    except BaseException:
        await close()
        raise
    log.info("session_store_opened", database=describe(database_url), interrupted_sessions=interrupted)
    return repository, close
