"""Where research sessions are stored. Every write is committed before the method returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from coordinator.domain.model.events import NewEvent
from coordinator.domain.model.outcome import StoredVerdict
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, StageOutcome


@dataclass(frozen=True)
class VerdictFilter:
    """Which stored verdicts to read: ``symbol`` (canonical), ``engine`` (``rules`` or an LLM model, as the
    verdict's ``engine.model`` else ``engine.kind``), the research day from ``start`` to ``end`` (inclusive; a
    session stored without an analysis date counts by the UTC day it was created); only ``client_id``'s sessions.
    None: no filter."""

    symbol: str | None = None
    engine: str | None = None
    client_id: str | None = None
    start: date | None = None
    end: date | None = None


class ISessionRepository(ABC):
    @abstractmethod
    async def create(self, session: ResearchSession) -> None:
        """Store a new session (status ``running``). Raises ``RetryAlreadyStartedError`` when
        ``session.retried_from`` already has a retry: a session is retried at most once."""

    @abstractmethod
    async def record_expert(
        self, session_id: str, expert: str, outcome: ExpertOutcome, events: Sequence[NewEvent] = ()
    ) -> None:
        """Store the expert's outcome and append ``events`` (its event) in one transaction."""

    @abstractmethod
    async def record_debate(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        """As ``record_expert``, for the debate."""

    @abstractmethod
    async def record_verdict(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        """As ``record_expert``, for the verdict."""

    @abstractmethod
    async def finish(self, session_id: str, status: SessionStatus) -> None: ...

    @abstractmethod
    async def get(self, session_id: str, client_id: str | None = None) -> ResearchSession | None:
        """The session; with ``client_id``, only if it is that client's. Another client's session is looked for by
        the same query as an id that names none and is None as that one is: the work done, and so the time it
        takes, does not tell that it exists."""

    @abstractmethod
    async def list(
        self,
        *,
        symbol: str | None,
        status: SessionStatus | None,
        limit: int,
        offset: int,
        client_id: str | None = None,
        days: tuple[date | None, date | None] = (None, None),
    ) -> tuple[list[ResearchSession], int]:
        """Newest first; returns (page, total matching); only ``client_id``'s sessions unless it is None, only
        analysis dates within ``days`` (first, last; either may be None)."""

    @abstractmethod
    async def list_verdicts(self, where: VerdictFilter, *, limit: int) -> tuple[Sequence[StoredVerdict], int]:
        """The sessions with a verdict that no retry replaced (``retried_by`` unset: each research counted once),
        matching ``where``, newest first, at most ``limit``; returns (them, how many match in all)."""

    @abstractmethod
    async def purge(self, created_before: datetime) -> int:
        """Delete the finished sessions created before ``created_before``; returns how many."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise when the store is unusable (for /readyz)."""
