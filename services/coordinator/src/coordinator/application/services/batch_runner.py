"""A batch's items run in chunks: a coordinator with room claims up to ``chunk_size`` queued items of the oldest
batch (``IBatchStore.claim_chunk``), asks each expert for all of them in one call, then the debate for the items an
expert answered, then the judge for those the debate answered (the peers' bulk endpoints), and ends every item of
the chunk in one transaction with its outcomes and events (``end_chunk``). Replicas share a batch chunk by chunk.

A chunk of a batch cancelled meanwhile is stopped here within ``poll_seconds``; a chunk whose end could not be
written is queued again (``release``). A coordinator that dies mid-chunk leaves its items ``running``: the instance
lease queues them again and another coordinator runs them from the start (their model calls are made again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from coordinator.application.services.session_events import expert_event, stage_event
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.domain.dtos.research_dtos import overall_status_of
from coordinator.domain.exceptions import GatewayError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.events import NewEvent, terminal_event
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, StageOutcome
from coordinator.domain.model.stage_failures import failure_of, tokens_used_by, usage_of_failure
from coordinator.domain.ports.batch_store import Chunk, EndedItem, IBatchStore
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway
from shared_contracts.redaction import error_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchSettings:
    chunk_size: int = 100
    """Items claimed and sent to the peers together."""
    concurrency: int = 4
    """Chunks this coordinator runs at once."""
    poll_seconds: float = 0.5
    """How often the batches' queue and the running chunks' batches are read (a submission here wakes it at once)."""


@dataclass
class _Item:
    """One item while its chunk runs: the session as the run records it."""

    session: ResearchSession

    @property
    def results(self) -> dict[str, dict[str, Any]]:
        return self.session.successful_results


class BatchRunner:
    def __init__(
        self,
        store: IBatchStore,
        research: IResearchExpertGateway,
        debate: IDebateGateway,
        judge: IJudgeGateway,
        *,
        owner: str,
        settings: BatchSettings,
        accounting: UsageAccounting | None = None,
        events_written: Callable[[str], None] = lambda session_id: None,
    ) -> None:
        self._store = store
        self._research, self._debate, self._judge = research, debate, judge
        self._owner = owner
        self.settings = settings
        self._accounting = accounting
        self._events_written = events_written
        self._running: dict[asyncio.Task[None], Chunk] = {}
        self._wake = asyncio.Event()
        self._claims: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        if self._claims is None and not self._stopping:
            self._claims = asyncio.create_task(self._claim_forever(), name="batch-chunk-claims")

    def wake(self) -> None:
        """A batch was stored: claim now rather than at the next poll."""
        self.start()
        self._wake.set()

    async def stop(self) -> None:
        """Stop claiming and stop the running chunks; their items stay ``running`` for the lease to queue again."""
        self._stopping = True
        tasks = [t for t in (self._claims, *self._running) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _claim_forever(self) -> None:
        checked = time.monotonic()
        while True:
            self._wake.clear()
            try:
                while len(self._running) < self.settings.concurrency:
                    chunk = await self._store.claim_chunk(self._owner, self.settings.chunk_size)
                    if chunk is None:
                        break
                    self._spawn(chunk)
                if time.monotonic() - checked >= self.settings.poll_seconds:
                    checked = time.monotonic()
                    await self._stop_cancelled()
            except Exception as exc:  # the store may be briefly down: the next round claims
                log.warning("batch_claim_failed: %s", error_text(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.poll_seconds):
                    await self._wake.wait()

    def _spawn(self, chunk: Chunk) -> None:
        task = asyncio.create_task(self._run_chunk(chunk), name=f"batch-{chunk.batch.batch_id}")
        self._running[task] = chunk

        def done(finished: asyncio.Task[None]) -> None:
            self._running.pop(finished, None)
            self._wake.set()

        task.add_done_callback(done)

    async def _stop_cancelled(self) -> None:
        for task, chunk in list(self._running.items()):
            batch = await self._store.get(chunk.batch.batch_id)
            if batch is None or batch.status == "cancelled":
                task.cancel()

    async def _run_chunk(self, chunk: Chunk) -> None:
        batch_id = chunk.batch.batch_id
        try:
            ended = await self.run(chunk)
        except asyncio.CancelledError:
            if not self._stopping:
                log.info("batch_chunk_cancelled %s (%d items)", batch_id, len(chunk.sessions))
            raise
        try:
            await self._store.end_chunk(batch_id, ended, self._owner)
        except Exception as exc:
            log.error("batch_chunk_not_written %s: %s", batch_id, error_text(exc))
            with contextlib.suppress(Exception):
                await self._store.release([s.session_id for s in chunk.sessions], self._owner)
            return
        for item in ended:
            self._events_written(item.session.session_id)
        if self._accounting is not None:
            for item in ended:
                with contextlib.suppress(Exception):
                    await self._accounting.settle(item.session)

    async def run(self, chunk: Chunk) -> list[EndedItem]:
        """Runs the chunk's items through the experts, the debate and the judge; how each ended."""
        items = [_Item(replace(s, expert_outcomes={})) for s in chunk.sessions]
        experts = [ExpertType(e) for e in chunk.batch.experts]
        await asyncio.gather(*(self._expert(e, items, chunk) for e in experts))
        for item in items:  # in the order asked, as a research's are (not in the order the bulk calls came back)
            outcomes = item.session.expert_outcomes
            item.session.expert_outcomes = {e.value: outcomes[e.value] for e in experts if e.value in outcomes}
        debated = [i for i in items if i.results]
        for item in items:
            if not item.results:
                item.session.debate = item.session.judge = StageOutcome("skipped")
        await self._debate_all(debated, chunk)
        judged = [i for i in debated if i.session.debate.status == "success"]
        for item in debated:
            if item.session.debate.status != "success":
                item.session.judge = StageOutcome("skipped")
        await self._judge_all(judged, chunk)
        return [_ended(item.session) for item in items]

    async def _expert(self, expert: ExpertType, items: list[_Item], chunk: Chunk) -> None:
        first = chunk.sessions[0]
        language = first.written_in  # a batch's items share it
        options = ExpertOptions(
            first.options.get(expert.value, {}), analysis_date=chunk.batch.analysis_date, language=language
        )
        if first.token_budget is not None:
            options.token_budget = first.token_budget // len(chunk.batch.experts)  # the parallel experts' share
        started = time.perf_counter()
        answers = await _each(self._research.run_expert_bulk(expert, [i.session.symbol for i in items], options), items)
        duration = _elapsed_ms(started)
        for item, answer in zip(items, answers, strict=True):
            if isinstance(answer, Exception):
                attempts = answer.attempts if isinstance(answer, GatewayError) else 1
                outcome = ExpertOutcome("failed", None, error_text(answer), duration, attempts, failure_of(answer))
            else:
                outcome = ExpertOutcome("success", answer, None, duration, 1)
            item.session.expert_outcomes[expert.value] = outcome

    async def _debate_all(self, items: list[_Item], chunk: Chunk) -> None:
        if not items:
            return
        requests = [(i.session.symbol, {**dict.fromkeys(i.session.failed_experts), **i.results}) for i in items]
        started = time.perf_counter()
        language = chunk.sessions[0].written_in  # a batch's items share it
        answers = await _each(
            self._debate.run_debate_bulk(requests, token_budget=_left(items), language=language), items
        )
        for item, answer in zip(items, answers, strict=True):
            item.session.debate = _stage_outcome(answer, _elapsed_ms(started))

    async def _judge_all(self, items: list[_Item], chunk: Chunk) -> None:
        if not items:
            return
        day = chunk.batch.analysis_date.isoformat()
        budget = _left(items)
        requests = []
        for item in items:
            context: dict[str, Any] = {
                "expert_results": item.results,
                "analysis_date": day,
                "failed_experts": sorted(item.session.failed_experts),
            }
            if budget is not None:
                context["token_budget"] = budget
            if (language := item.session.written_in) is not None:
                context["language"] = language
            requests.append((item.session.symbol, item.session.debate.data or {}, context))
        started = time.perf_counter()
        answers = await _each(self._judge.run_verdict_bulk(requests), items)
        for item, answer in zip(items, answers, strict=True):
            item.session.judge = _stage_outcome(answer, _elapsed_ms(started))


def _left(items: Sequence[_Item]) -> int | None:
    """The tokens the next stage of every item may use: the least any item has left of its budget (one bulk call
    carries one budget per item); None without a budget."""
    budgets = [i.session.token_budget for i in items]
    if any(b is None for b in budgets):
        return None
    spent = [sum(tokens_used_by(d) for d in (*i.results.values(), i.session.debate.data)) for i in items]
    return max(min(b - s for b, s in zip(budgets, spent, strict=True) if b is not None), 0)


async def _each(
    call: Awaitable[list[dict[str, Any] | Exception]], items: Sequence[_Item]
) -> list[dict[str, Any] | Exception]:
    """The per-item answers of a bulk call; when the whole call fails, its error for every item."""
    try:
        return await call
    except Exception as exc:
        return [exc] * len(items)


def _stage_outcome(answer: dict[str, Any] | Exception, duration: float) -> StageOutcome:
    if isinstance(answer, Exception):
        return StageOutcome("failed", error_text(answer), duration, usage=usage_of_failure(answer))
    return StageOutcome("success", duration_ms=duration, data=answer)


def _ended(session: ResearchSession) -> EndedItem:
    """The item's final status and its events: each expert's, the debate's, the verdict's, then the terminal one."""
    status = overall_status_of(session.experts, set(session.successful_results))
    events: list[NewEvent] = [expert_event(e, o) for e, o in session.expert_outcomes.items()]
    events += [stage_event("debate", session.debate), stage_event("verdict", session.judge)]
    events.append(terminal_event(status))
    return EndedItem(session, status, events)


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)
