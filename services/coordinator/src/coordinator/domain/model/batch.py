"""A batch: many symbols researched as of one day, each an ordinary session, ranked together when they end."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from coordinator.domain.model.session import LOCAL_CLIENT_ID, utcnow

BatchStatus = Literal["queued", "running", "completed", "partial", "failed", "cancelled"]
BATCH_FINAL_STATUSES: frozenset[str] = frozenset({"completed", "partial", "failed", "cancelled"})


@dataclass
class Batch:
    batch_id: str
    analysis_date: date
    experts: list[str]
    total: int
    client_id: str = LOCAL_CLIENT_ID
    requested_by: str | None = None
    token_budget: int | None = None
    """Each item's token budget (the lower of RESEARCH_TOKEN_BUDGET and the request's)."""
    status: BatchStatus = "queued"
    request_id: str | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    completed_at: datetime | None = None
    watchlist_id: str | None = None
    """The watchlist this batch is a run of, when it is one."""
    schedule_id: str | None = None
    """The schedule whose slot started it, when one did."""
    channels: list[str] = field(default_factory=list)
    """The channels told when it ends (the outbox gets one delivery each in the transaction that ends it)."""

    @property
    def finished(self) -> bool:
        return self.status in BATCH_FINAL_STATUSES


@dataclass(frozen=True)
class BatchProgress:
    """How many of a batch's items have ended (``done``, of which ``failed``), out of ``total``."""

    done: int
    total: int
    failed: int


@dataclass(frozen=True)
class BatchItem:
    """One item of a batch as its ranked table shows it (the verdict's figures; None before it has one)."""

    symbol: str
    session_id: str
    status: str
    action: str | None = None
    score: float | None = None
    universe_rank: float | None = None
    position_percent: float | None = None
    confidence: float | None = None


def ranked(items: list[BatchItem]) -> list[BatchItem]:
    """Best first: by verdict score, highest first; items without a score after, in the order asked."""
    scored = sorted((i for i in items if i.score is not None), key=lambda i: -(i.score or 0.0))
    return [*scored, *(i for i in items if i.score is None)]


def batch_status_of(progress: BatchProgress, completed: int) -> BatchStatus:
    """The status of a batch whose items have all ended: ``completed`` (each completed), ``failed`` (each failed),
    else ``partial``. ``completed``: how many items completed."""
    if completed == progress.total:
        return "completed"
    return "failed" if progress.failed == progress.total else "partial"
