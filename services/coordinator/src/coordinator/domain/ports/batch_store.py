"""Where batches are kept: the batch, its items (ordinary sessions, queued together), and the chunks of items a
coordinator claims and ends together."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from coordinator.domain.model.batch import Batch, BatchItem, BatchProgress
from coordinator.domain.model.events import NewEvent
from coordinator.domain.model.session import ResearchSession, SessionStatus


@dataclass(frozen=True)
class Chunk:
    """Items of one batch claimed together by one coordinator (``running``, owned by it)."""

    batch: Batch
    sessions: list[ResearchSession]


@dataclass(frozen=True)
class EndedItem:
    """How one item of a chunk ended: the session as its run recorded it (experts, debate, verdict), its final
    status and the events to append (its terminal event last)."""

    session: ResearchSession
    status: SessionStatus
    events: list[NewEvent]
    reason: str | None = None


class IBatchStore(ABC):
    @abstractmethod
    async def create(self, batch: Batch, sessions: Sequence[ResearchSession]) -> None:
        """Store the batch and its items, each ``queued`` with its ``session.queued`` event, in one transaction."""

    @abstractmethod
    async def get(self, batch_id: str) -> Batch | None: ...

    @abstractmethod
    async def items(self, batch_id: str) -> list[BatchItem]:
        """The batch's items as its ranked table shows them, in the order asked."""

    @abstractmethod
    async def sessions(self, batch_id: str, *, offset: int = 0, limit: int | None = None) -> list[ResearchSession]:
        """The batch's items in the order asked (``offset``, ``limit``: a page of them), with their experts'
        outcomes, debate and verdict."""

    @abstractmethod
    async def progress(self, batch_id: str) -> BatchProgress: ...

    @abstractmethod
    async def list(
        self, client_id: str | None, *, offset: int, limit: int, watchlist_id: str | None = None
    ) -> tuple[Sequence[Batch], int]:
        """Batches, newest first (``client_id``'s only, unless None; ``watchlist_id``'s runs only, when given), and
        how many there are in all."""

    @abstractmethod
    async def previous_run(self, batch: Batch) -> Batch | None:
        """The run of ``batch``'s watchlist before it: the latest ended one created before it whose analysis date
        is not after its own (None for a batch of no watchlist, or its first run)."""

    @abstractmethod
    async def claim_chunk(self, owner: str, size: int) -> Chunk | None:
        """Up to ``size`` queued items of the oldest batch that has any, made ``running`` for ``owner`` with their
        ``session.started`` event, in one transaction (the batch ``running`` too); None when no item waits. Two
        claimers never get one item."""

    @abstractmethod
    async def end_chunk(self, batch_id: str, ended: Sequence[EndedItem], owner: str) -> Batch:
        """Record each item's outcomes, final status and events in one transaction (an item ended meanwhile, e.g.
        cancelled, or no longer ``owner``'s, e.g. queued again after this coordinator stalled past its lease, is left
        as it is); when no item of the batch is left queued or running, the batch takes its
        final status in the same transaction, and each of its channels gets a pending delivery in the outbox.
        Returns the batch as it now is."""

    @abstractmethod
    async def cancel(self, batch_id: str) -> Batch:
        """End the batch ``cancelled`` and each of its items not ended yet, with its terminal event."""

    @abstractmethod
    async def release(self, session_ids: Sequence[str], owner: str) -> None:
        """Queue again the items of a chunk ``owner`` could not end (their end was not written)."""

    @abstractmethod
    async def waiting_items(self) -> int:
        """Items of every batch still queued (the batches' queue)."""
