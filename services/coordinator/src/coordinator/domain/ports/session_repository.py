"""Where research sessions are stored. Every write is committed before the method returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, StageOutcome


class ISessionRepository(ABC):
    @abstractmethod
    async def create(self, session: ResearchSession) -> None:
        """Store a new session (status ``running``). Raises ``RetryAlreadyStartedError`` when
        ``session.retried_from`` already has a retry: a session is retried at most once."""

    @abstractmethod
    async def record_expert(self, session_id: str, expert: str, outcome: ExpertOutcome) -> None: ...

    @abstractmethod
    async def record_debate(self, session_id: str, stage: StageOutcome, outcome: dict[str, Any] | None) -> None: ...

    @abstractmethod
    async def record_verdict(self, session_id: str, stage: StageOutcome, verdict: dict[str, Any] | None) -> None: ...

    @abstractmethod
    async def finish(self, session_id: str, status: SessionStatus) -> None: ...

    @abstractmethod
    async def get(self, session_id: str) -> ResearchSession | None: ...

    @abstractmethod
    async def list(
        self, *, symbol: str | None, status: SessionStatus | None, limit: int, offset: int
    ) -> tuple[list[ResearchSession], int]:
        """Newest first; returns (page, total matching)."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise when the store is unusable (for /readyz)."""
