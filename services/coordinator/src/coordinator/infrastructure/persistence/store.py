"""Opening the sessions store at start-up: one call for the coordinator's lifespan."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

import structlog

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence.engine import build_engine, describe
from coordinator.infrastructure.persistence.instances import (
    DEFAULT_LEASE_SECONDS,
    InstanceIdentity,
    InstanceLease,
    SqlAlchemyInstanceStore,
)
from coordinator.infrastructure.persistence.migrate import run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.write_transactions import write_transactions_for

log = structlog.get_logger(__name__)

CloseStore = Callable[[], Awaitable[None]]


async def open_session_store(
    database_url: str, *, lease_seconds: float = DEFAULT_LEASE_SECONDS
) -> tuple[SqlAlchemySessionRepository, CloseStore]:
    """Migrate the database to head, build the engine, register this coordinator instance
    (``instances.InstanceLease``, renewed every ``lease_seconds / 3``) and mark ``interrupted`` the
    sessions of coordinators that are gone, which makes them retryable. Sessions another live replica
    is running are left alone.

    Returns the repository and the coroutine function that closes it: this instance's sessions still
    running become ``interrupted``, its registration is removed, and the engine is disposed of."""
    engine, where = build_engine(database_url), describe(database_url)
    repository: SqlAlchemySessionRepository | None = None
    lease: InstanceLease | None = None

    async def close() -> None:
        try:
            if lease is not None:
                await lease.stop()
        except Exception as exc:  # the store is down at shutdown: its sessions are swept by the next start
            log.warning("session_store_release_failed", database=where, error=_reason(exc))
        finally:
            if repository is not None:
                await repository.close()
            await engine.dispose()

    try:
        await run_migrations(engine)
        identity, writes = InstanceIdentity.of_this_process(), write_transactions_for(engine)
        repository = SqlAlchemySessionRepository(engine, identity.instance_id, writes)
        lease = InstanceLease(SqlAlchemyInstanceStore(engine, writes), repository, lease_seconds, identity)
        interrupted = await lease.start()
    except Exception as exc:
        with contextlib.suppress(Exception):  # the original error is the one to see
            await close()
        log.error("session_store_unusable_at_start", database=where, error=_reason(exc))
        message = f"The session store (DATABASE_URL={where}) is not usable: {_reason(exc)}"
        raise SessionStoreUnavailableError(message) from exc
    except BaseException:
        with contextlib.suppress(Exception):
            await close()
        raise
    log.info("session_store_opened", database=where, instance=lease.instance_id, interrupted_sessions=interrupted)
    return repository, close


def _reason(exc: BaseException) -> str:
    """The innermost error of the chain (the driver's), on one line."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__
