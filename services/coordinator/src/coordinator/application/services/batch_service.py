"""The batch use cases: submit many symbols as of one day (each an ordinary session, queued together), read a
batch with its progress and its items ranked by score, page through its items' full results, list a client's
batches, cancel one, and follow its progress.

A batch is private to its client (an ``admin`` sees every client's), as its items are. A malformed request is a
400 before anything is stored; more than ``MAX_BATCH_SYMBOLS`` symbols is a 413; a well-formed symbol the
research service does not know is a failed item. Symbols listed twice are researched once.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import date

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.batch_runner import BatchRunner
from coordinator.application.services.request_validation import validate_command
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.domain.exceptions import (
    BatchFinishedError,
    BatchNotFoundError,
    BatchTooLargeError,
    QueueFullError,
    SymbolsEmptyError,
)
from coordinator.domain.model.batch import Batch, BatchItem, BatchProgress, ranked
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import LOCAL_CLIENT_ID, ResearchSession
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.batch_store import IBatchStore
from shared_contracts.batches import MAX_BATCH_SYMBOLS
from shared_contracts.errors import InvalidSymbolError
from shared_contracts.language import Language
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol


@dataclass(frozen=True)
class BatchCommand:
    symbols: list[str] | None
    analysis_date: str | None = None
    experts: list[str] | None = None
    token_budget: int | None = None
    language: str | None = None
    """As sent (zh or en expected; None: REPORT_LANGUAGE): every item's language."""
    request_id: str | None = field(default=None, compare=False)
    client_id: str = field(default=LOCAL_CLIENT_ID, compare=False)
    watchlist_id: str | None = None
    schedule_id: str | None = None
    channels: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BatchState:
    """A batch as read: itself, its progress, and its items ranked best first (empty when not asked for)."""

    batch: Batch
    progress: BatchProgress
    items: list[BatchItem] = field(default_factory=list)
    previous: Batch | None = None
    """The watchlist's run before this one (read with the items), for what changed since."""


class BatchService:
    def __init__(
        self,
        store: IBatchStore,
        runner: BatchRunner,
        *,
        today: Callable[[], date] = date.today,
        token_budget: int | None = None,
        accounting: UsageAccounting | None = None,
        queue_limit: int = 20_000,
        poll_seconds: float = 0.5,
        language: Language | None = None,
    ) -> None:
        """``token_budget``: RESEARCH_TOKEN_BUDGET, each item's cap; ``queue_limit``: items of every batch that may
        wait at once (beyond: ``queue_full``); ``poll_seconds``: how often an event stream reads the progress;
        ``language``: REPORT_LANGUAGE, the items' language when the batch names none."""
        self._language = language
        self._store = store
        self._runner = runner
        self._today = today
        self._token_budget = token_budget
        self._accounting = accounting
        self._queue_limit = queue_limit
        self._poll_seconds = poll_seconds

    async def submit(self, command: BatchCommand) -> BatchState:
        """Stores the batch and its items, queued; raises a 400 ``InvalidRequestError``, a 413
        ``BatchTooLargeError``, 503 ``QueueFullError`` or 429 ``TokenQuotaExceededError`` before storing anything."""
        batch, sessions = await self.prepare(command)
        try:
            await self._store.create(batch, sessions)
        except BaseException:
            await asyncio.shield(self.release(sessions))
            raise
        self.queued()
        return BatchState(batch, BatchProgress(0, batch.total, 0))

    def queued(self) -> None:
        """A batch was stored (here or by a schedule): run it now rather than at the next poll."""
        self._runner.wake()

    async def prepare(self, command: BatchCommand) -> tuple[Batch, list[ResearchSession]]:
        """The batch and its items, queued, to store, each item's token budget held against the client's daily tokens
        (``release`` gives them back when they are not stored); raises as ``submit`` does."""
        symbols = normalized_symbols(command.symbols)
        experts = command.experts if command.experts is not None else [e.value for e in ExpertType]
        probe = ResearchCommand(symbols[0], experts, analysis_date=command.analysis_date, language=command.language)
        request = validate_command(probe, self._today, self._language)
        assert request.analysis_date is not None  # validate_command resolves it
        if await self._store.waiting_items() + len(symbols) > self._queue_limit:
            raise QueueFullError(self._queue_limit, 30)
        budgets = [b for b in (self._token_budget, command.token_budget) if b is not None]
        budget = self._accounting.budget_of(*budgets) if self._accounting is not None else min(budgets, default=None)
        batch = Batch(
            batch_id=str(uuid.uuid4()),
            analysis_date=request.analysis_date,
            experts=[e.value for e in request.experts],
            total=len(symbols),
            client_id=command.client_id,
            requested_by=command.client_id,
            token_budget=budget,
            request_id=command.request_id,
            watchlist_id=command.watchlist_id,
            schedule_id=command.schedule_id,
            channels=list(command.channels),
        )
        sessions = [
            ResearchSession(
                str(uuid.uuid4()),
                symbol,
                list(batch.experts),
                request.options,
                False,
                batch.analysis_date,
                status="queued",
                language=request.language,
                request_id=command.request_id,
                client_id=batch.client_id,
                requested_by=batch.client_id,
                token_budget=batch.token_budget,
                resumable=True,
                batch_id=batch.batch_id,
                batch_position=position,
                created_at=batch.created_at,
                updated_at=batch.created_at,
            )
            for position, symbol in enumerate(symbols)
        ]
        if self._accounting is not None:
            await self._accounting.reserve(sessions)  # every item's budget, or 429 token_quota_exceeded
        return batch, sessions

    async def release(self, sessions: list[ResearchSession]) -> None:
        """Gives back what prepared items hold (they were not stored, or were cancelled before they ended)."""
        if self._accounting is not None:
            await self._accounting.release(sessions)

    async def get(self, batch_id: str, viewer: Viewer, *, with_items: bool = True) -> BatchState:
        batch = await self._visible(batch_id, viewer)
        items = ranked(await self._store.items(batch_id)) if with_items else []
        previous = await self._store.previous_run(batch) if with_items else None
        return BatchState(batch, await self._store.progress(batch_id), items, previous)

    async def page(
        self, viewer: Viewer, *, offset: int, limit: int, watchlist_id: str | None = None
    ) -> tuple[list[BatchState], int]:
        """The viewer's batches, newest first (``watchlist_id``'s runs only, when given)."""
        batches, total = await self._store.list(
            viewer.only_client, offset=offset, limit=limit, watchlist_id=watchlist_id
        )
        return [BatchState(b, await self._store.progress(b.batch_id)) for b in batches], total

    async def results(
        self, batch_id: str, viewer: Viewer, *, offset: int, limit: int
    ) -> tuple[list[ResearchSession], int]:
        """The items' sessions in the order asked, ``offset`` and ``limit`` paging them; and how many there are."""
        batch = await self._visible(batch_id, viewer)
        return list(await self._store.sessions(batch_id, offset=offset, limit=limit)), batch.total

    async def cancel(self, batch_id: str, viewer: Viewer) -> BatchState:
        """Ends the batch and its items not ended yet ``cancelled`` (again: no change); ``BatchFinishedError`` when
        it had ended otherwise. A chunk running elsewhere stops within its coordinator's poll."""
        batch = await self._visible(batch_id, viewer)
        if batch.finished and batch.status != "cancelled":
            raise BatchFinishedError(batch_id, batch.status)
        batch = await self._store.cancel(batch_id)
        if batch.status != "cancelled":
            raise BatchFinishedError(batch_id, batch.status)
        # Every item's hold ends: an item that had ended settled its own already (giving back twice is a no-op).
        await self.release(list(await self._store.sessions(batch_id, offset=0, limit=batch.total)))
        return await self.get(batch_id, viewer)

    async def follow(self, batch_id: str, viewer: Viewer) -> AsyncIterator[BatchState]:
        """The batch's state each time its progress changes (the first at once), until it has ended (that state
        last); read every ``poll_seconds``."""
        await self._visible(batch_id, viewer)
        told: BatchProgress | None = None
        while True:
            batch = await self._visible(batch_id, viewer)
            progress = await self._store.progress(batch_id)
            if progress != told or batch.finished:
                told = progress
                yield BatchState(batch, progress)
            if batch.finished:
                return
            await asyncio.sleep(self._poll_seconds)

    async def _visible(self, batch_id: str, viewer: Viewer) -> Batch:
        batch = await self._store.get(batch_id)
        if batch is None or not (viewer.sees_all or batch.client_id == viewer.client_id):
            raise BatchNotFoundError(batch_id)
        return batch


def normalized_symbols(given: list[str] | None) -> list[str]:
    """The symbols, normalised, each once, in the order given; raises 400 ``symbols_empty``, ``invalid_symbol``
    (naming its place) or 413 ``batch_too_large`` (more than one batch may research)."""
    if not given:
        raise SymbolsEmptyError("symbols must list at least one symbol (e.g. 600519.SH)")
    if len(given) > MAX_BATCH_SYMBOLS:
        raise BatchTooLargeError(len(given), MAX_BATCH_SYMBOLS)
    symbols = []
    for position, raw in enumerate(given):
        try:
            symbols.append(normalize_symbol(str(raw).strip()))
        except SymbolSyntaxError as exc:
            raise InvalidSymbolError(f"symbols[{position}]: {exc}") from None
    return list(dict.fromkeys(symbols))
