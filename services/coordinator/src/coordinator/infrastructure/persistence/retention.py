"""Session retention: finished sessions older than ``SESSION_RETENTION_DAYS`` are deleted, once at start and
then every ``SESSION_PURGE_INTERVAL_SECONDS`` (every replica may run it: a purge deletes what has expired)."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

import structlog

from coordinator.domain.model.session import utcnow
from coordinator.domain.ports.session_repository import ISessionRepository

log = structlog.get_logger(__name__)


class RetentionPurge:
    def __init__(self, sessions: ISessionRepository, *, retention_days: int, interval_seconds: float) -> None:
        self._sessions = sessions
        self._retention = timedelta(days=retention_days)
        self._interval = interval_seconds
        self._task: asyncio.Task[None] | None = None

    async def purge_once(self) -> int:
        """Delete what has expired now; returns how many sessions."""
        deleted = await self._sessions.purge(utcnow() - self._retention)
        if deleted:
            log.info("sessions_purged", deleted=deleted, retention_days=self._retention.days)
        return deleted

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="session-retention-purge")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.purge_once()
            except Exception as exc:  # the store is down: try again next time
                log.warning("session_purge_failed", error=type(exc).__name__)
            await asyncio.sleep(self._interval)
