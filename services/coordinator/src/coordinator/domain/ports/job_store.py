"""Where research jobs wait, are claimed, and record their events: the session store seen as a durable queue."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from coordinator.domain.model.events import NewEvent, SessionEvent
from coordinator.domain.model.session import ResearchSession, SessionStatus

Started = Callable[[ResearchSession], NewEvent]
"""The event a claimed session starts (or resumes) with, made from the session as claimed."""


@dataclass(frozen=True)
class Enqueued:
    position: int
    """The session's place among its client's queued sessions when stored (theirs before it, plus one); 0: the
    client's share of the queue was full, nothing was stored."""
    claimed: ResearchSession | None = None


@dataclass(frozen=True)
class Claim:
    """Who holds a session now: its status, whether this coordinator holds it (``owner``), and its
    ``resume_count``, the claim's fencing token (a session queued again and claimed anew, here or elsewhere, counts
    one more)."""

    status: SessionStatus
    here: bool
    resume_count: int


class IJobStore(ABC):
    @abstractmethod
    async def enqueue(
        self,
        session: ResearchSession,
        *,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        """Store a new ``queued`` session with its ``session.queued`` event (its ``position``) in one transaction,
        unless its client holds its share of ``queue_limit`` already (nothing stored): the limit shared equally
        among the clients with sessions waiting, this one included. With ``claim``, the same transaction takes the
        next queued session (``claim_next``: this one unless others wait, with its ``started`` event)."""

    @abstractmethod
    async def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        """Append ``events`` to the session's, numbered after its last; returns the last number."""

    @abstractmethod
    async def events_after(self, session_id: str, after: int, *, limit: int = 500) -> Sequence[SessionEvent]:
        """The session's events numbered above ``after``, in order, at most ``limit``."""

    @abstractmethod
    async def end(
        self, session_id: str, status: SessionStatus, events: Sequence[NewEvent], *, reason: str | None = None
    ) -> bool:
        """Give a session that has not ended its final ``status`` (and ``reason``) and append ``events`` (its terminal
        event last) in one transaction; False (nothing written) when it had ended already."""

    @abstractmethod
    async def claim_next(self, started: Started | None = None) -> ResearchSession | None:
        """Take the next ``queued`` session for this coordinator, round-robin across clients (of the clients with
        sessions waiting, one with the fewest running; its oldest): it becomes ``running``, owned by it; one that had
        started before counts one more resume; ``started`` gives the event appended in the same transaction, from
        the session as claimed. None when the queue is empty. Two claimers never get one session."""

    @abstractmethod
    async def queued(self) -> Sequence[str]:
        """The queued sessions' ids, oldest first (the queue's order)."""

    @abstractmethod
    async def queue_position(self, session_id: str) -> int | None:
        """A queued session's place among its own client's queued sessions (1: the next of theirs); None when it is
        not queued. Other clients' sessions are not counted: the answer reveals nothing of theirs."""

    @abstractmethod
    async def statuses(self, session_ids: Sequence[str]) -> dict[str, SessionStatus]: ...

    @abstractmethod
    async def claims(self, session_ids: Sequence[str]) -> dict[str, Claim]:
        """Who holds each of the sessions now (unknown ids are left out)."""

    @abstractmethod
    async def find_idempotent(self, client_id: str, key: str, since: datetime) -> ResearchSession | None:
        """The newest session ``client_id`` created with ``key`` since ``since``."""
