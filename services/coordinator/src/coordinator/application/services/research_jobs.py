"""Research sessions run as jobs: every research, synchronous or not, is stored ``queued``, claimed from the store by
a coordinator with a free slot (at most ``concurrency`` at a time; clients in turn, across replicas), run with the
graph checkpointed under its session id, and ended with exactly one terminal event.

A session whose coordinator died is queued again by the instance lease (``resumable`` sessions) and claimed like any
other; the claim counts a resume, and the run continues from its checkpoint (``ResumeUnavailableError``: it ends
``interrupted``, saying why). Cancelling a session ends it ``cancelled``: a job running here is cancelled at once
(its in-flight peer calls with it), one running elsewhere within ``poll_seconds`` (its coordinator sees the status).
A run is fenced by its claim (owner and ``resume_count``): one whose session was queued again (this coordinator was
taken for gone) or claimed anew is stopped within ``poll_seconds`` without writing anything: the next run resumes
from the checkpoint. At shutdown the running jobs are stopped without ending their sessions: the lease's release queues
them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from coordinator.application.services.pending_events import PendingEvents
from coordinator.application.services.session_events import event_of, expert_event, stage_event
from coordinator.application.services.usage_accounting import UsageAccounting, budget_reason
from coordinator.domain.dtos.research_dtos import ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.exceptions import QueueFullError, ResumeUnavailableError, SessionFinishedError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.events import NewEvent, terminal_event
from coordinator.domain.model.progress import ExpertFinished, ResearchFinished, StageFinished
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, StageOutcome
from coordinator.domain.ports.job_store import IJobStore
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.redaction import error_text
from shared_contracts.usage import ResearchUsage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobSettings:
    concurrency: int = 8
    """Researches run at once by this coordinator."""
    queue_limit: int = 100
    """Sessions waiting in the (shared) queue, shared equally among the clients with sessions waiting: beyond its
    share a client's submission is refused (``queue_full``)."""
    poll_seconds: float = 0.5
    """How often the queue and the running sessions' statuses are read (a local submission wakes it at once)."""
    stall_seconds: float = 120.0
    """A running research that reports nothing this long gets a ``session.stalled`` event."""
    start_events_seconds: float = 0.1
    """A stage's ``started`` event is written at most this long after it (``PendingEvents``); one that ends sooner
    is written with its end."""
    retry_after_seconds: int = 5


class ResearchJobs:
    def __init__(
        self,
        orchestrator: IResearchOrchestrationPort,
        sessions: ISessionRepository,
        store: IJobStore,
        *,
        owner: str,
        settings: JobSettings,
        resumable: bool = False,
        accounting: UsageAccounting | None = None,
        events_written: Callable[[str], None] = lambda session_id: None,
    ) -> None:
        """``owner``: this coordinator's instance (named in the events); ``resumable``: the orchestrator checkpoints
        its runs, so a session whose coordinator died is queued again rather than interrupted; ``accounting``:
        settles what each session spent on model calls when it ends; ``events_written`` is told each session whose
        events this coordinator has just committed (``SessionEventFeed.wake``)."""
        self._accounting = accounting
        self._orchestrator = orchestrator
        self._sessions = sessions
        self._store = store
        self._owner = owner
        self.settings = settings
        self._running: dict[str, asyncio.Task[None]] = {}
        self._results: dict[str, asyncio.Future[ResearchResult]] = {}
        self._cancelling: set[str] = set()
        self._claimed_as: dict[str, int] = {}  # each running session's resume_count when claimed (its fencing token)
        self._fenced: set[asyncio.Task[None]] = set()  # runs stopped because their session is no longer theirs
        # The submitting request's context (its request id, its trace) for a job this coordinator runs.
        self._contexts: dict[str, contextvars.Context] = {}
        self._wake = asyncio.Event()
        # Whether a session may be waiting in the queue: a finished job wakes the claims only then (a session
        # queued by another replica meanwhile is claimed at the next poll).
        self._maybe_queued = True
        self._claims: asyncio.Task[None] | None = None
        self._claiming = 0  # submissions claiming in their own transaction, their slots reserved
        self._stopping = False
        self._resumable = resumable
        self._events_written = events_written

    @property
    def owner(self) -> str:
        return self._owner

    def start(self) -> None:
        """Start claiming queued sessions (``submit`` starts it too, when nothing has)."""
        if self._claims is None and not self._stopping:
            self._claims = asyncio.create_task(self._claim_forever(), name="research-job-claims")

    async def stop(self) -> None:
        """Stop claiming and stop the running jobs; their sessions stay ``running`` for the lease to queue again."""
        self._stopping = True
        tasks = [t for t in (self._claims, *self._running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def submit(self, session: ResearchSession) -> int:
        """Store ``session`` as ``queued`` (with its ``session.queued`` event); returns its place among its client's
        queued sessions. Raises ``QueueFullError`` when no slot is free here and its client's share of the queue is
        full."""
        self.start()
        self._contexts[session.session_id] = contextvars.copy_context()
        stored = replace(session, status="queued", resumable=self._resumable)
        # With a slot free here, the next queued session is claimed in the same transaction (no claim round);
        # without one, the queue's limit applies.
        free = len(self._running) + self._claiming < self.settings.concurrency and not self._stopping
        self._claiming += int(free)
        try:
            limit = None if free else self.settings.queue_limit
            enqueued = await self._store.enqueue(stored, claim=free, queue_limit=limit, started=self._started_event)
            if not enqueued.position:
                raise QueueFullError(self.settings.queue_limit, self.settings.retry_after_seconds)
        except BaseException:
            self._contexts.pop(session.session_id, None)
            raise
        finally:
            self._claiming -= int(free)
        self._events_written(session.session_id)
        if enqueued.claimed is not None:
            self._spawn(enqueued.claimed)
        if enqueued.claimed is None or enqueued.claimed.session_id != session.session_id:
            self._maybe_queued = True
            self._wake.set()  # it waits: the claims may take it when a slot frees
        return enqueued.position

    async def result(self, session_id: str) -> ResearchResult:
        """The result of a session run here, once it has ended; when it ended elsewhere (another replica took
        it) or without a result, ``SessionFinishedError`` names how it ended."""
        future = self._results.setdefault(session_id, asyncio.get_running_loop().create_future())
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.settings.poll_seconds * 4):
                        return await asyncio.shield(future)
                status = (await self._store.statuses([session_id])).get(session_id)
                if status is not None and status not in ("queued", "running") and not future.done():
                    raise SessionFinishedError(session_id, status)
        finally:
            self._results.pop(session_id, None)
            self._contexts.pop(session_id, None)  # claimed elsewhere: its context is not needed here

    async def cancel(self, session_id: str) -> bool:
        """End the session ``cancelled``; False when it had ended already. Its job stops here at once, or on the
        coordinator running it at its next poll."""
        task = self._running.get(session_id)
        if task is not None:
            self._cancelling.add(session_id)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        ended = await self._store.end(session_id, "cancelled", [terminal_event("cancelled")])
        self._events_written(session_id)
        return ended

    async def _claim_forever(self) -> None:
        checked = time.monotonic()
        while True:
            self._wake.clear()
            try:
                self._maybe_queued = True  # until a claim finds the queue empty
                while len(self._running) + self._claiming < self.settings.concurrency:
                    session = await self._store.claim_next(self._started_event)
                    if session is None:
                        self._maybe_queued = False
                        break
                    self._events_written(session.session_id)
                    self._spawn(session)
                if time.monotonic() - checked >= self.settings.poll_seconds:  # not at every wake-up
                    checked = time.monotonic()
                    await self._stop_runs_not_held()
            except Exception as exc:  # the store may be briefly down: the next round claims
                log.warning("job_claim_failed: %s", error_text(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.poll_seconds):
                    await self._wake.wait()

    async def _stop_runs_not_held(self) -> None:
        """Stop the runs whose session was cancelled elsewhere (it ends ``cancelled``), and, without writing
        anything, those whose claim is gone: their session was queued again or claimed anew (``resume_count``)."""
        for session_id, claim in (await self._store.claims(list(self._running))).items():
            task = self._running.get(session_id)
            if task is None:
                continue
            if claim.status == "cancelled":
                self._cancelling.add(session_id)
                task.cancel()
            elif claim.status == "queued" or (
                claim.status == "running" and (not claim.here or claim.resume_count != self._claimed_as.get(session_id))
            ):
                self._fence(task)

    def _fence(self, task: asyncio.Task[None]) -> None:
        self._fenced.add(task)
        task.cancel()

    def _spawn(self, session: ResearchSession) -> None:
        session_id = session.session_id
        if (previous := self._running.get(session_id)) is not None:
            self._fence(previous)  # queued again while its run went on here, and claimed anew by this coordinator
        context = self._contexts.pop(session_id, None)
        task = asyncio.create_task(self._execute(session), name=f"research-{session_id}", context=context)
        self._running[session_id] = task
        self._claimed_as[session_id] = session.resume_count

        def done(finished: asyncio.Task[None]) -> None:
            self._fenced.discard(finished)
            if self._running.get(session_id) is finished:
                self._running.pop(session_id, None)
                self._claimed_as.pop(session_id, None)
                self._cancelling.discard(session_id)
            if self._maybe_queued:
                self._wake.set()

        task.add_done_callback(done)

    async def _execute(self, session: ResearchSession) -> None:
        session_id, resume = session.session_id, session.resume_count > 0
        request = request_of(session)
        ran = replace(session, expert_outcomes=dict(session.expert_outcomes))  # the session as this run records it
        future = self._results.setdefault(session_id, asyncio.get_running_loop().create_future())
        heard = [time.monotonic()]  # when the run last reported anything
        watch = asyncio.create_task(self._watch_for_stalls(session_id, heard))
        notes = PendingEvents(self._store, session_id, self._events_written, delay=self.settings.start_events_seconds)
        try:
            result = await self._drive(ran, request, resume, heard, notes)
            result = result.model_copy(update={"session_id": session_id, "retry_count": session.retry_count})
        except ResumeUnavailableError as exc:
            log.warning("research_not_resumable %s: %s", session_id, exc)
            ended = SessionFinishedError(session_id, "interrupted")
            await self._end(session_id, "interrupted", future, ended, str(exc), notes)
            await self._settle(ran)
        except asyncio.CancelledError:
            if asyncio.current_task() in self._fenced:
                log.warning("research_run_fenced %s: the session is held by another claim now", session_id)
                raise  # whoever holds the session runs it (from the checkpoint) and ends it
            if self._stopping and session_id not in self._cancelling:
                future.cancel()
                raise  # shutdown: the session stays running; the lease's release queues it again
            ended = SessionFinishedError(session_id, "cancelled")
            await asyncio.shield(self._end(session_id, "cancelled", future, ended, notes=notes))
            await asyncio.shield(self._settle(ran))
        except Exception as exc:
            log.error("research_failed %s: %s", session_id, error_text(exc))
            await self._end(session_id, "failed", future, exc, error_text(exc), notes)
            await self._settle(ran)
        else:
            usage = await self._settle(ran)
            reason = budget_reason(usage) if usage is not None else None
            await self._end(session_id, result.overall_status, future, None, reason, notes)
            result = result.model_copy(update={"usage": usage}) if usage is not None else result
            if not future.done():
                future.set_result(result)
        finally:
            watch.cancel()
            notes.close()
            if asyncio.current_task() not in self._fenced:  # a fenced run leaves it to the run that replaced it
                self._results.pop(session_id, None)  # a waiter holds its own reference; a later one reads the store
        try:
            await self._orchestrator.forget(session_id)
        except Exception as exc:  # a checkpoint left behind costs space, not correctness
            log.warning("checkpoint_not_deleted %s: %s", session_id, error_text(exc))

    def _started_event(self, session: ResearchSession) -> NewEvent:
        """``session.started``, or ``session.resumed`` (from which stage) for a session run before: written in the
        claim's transaction."""
        if session.resume_count == 0:
            return NewEvent("session.started", {"instance": self._owner})
        resumed = {"from_stage": first_unfinished_stage(session), "resume_count": session.resume_count}
        return NewEvent("session.resumed", {"instance": self._owner, **resumed})

    async def _settle(self, ran: ResearchSession) -> ResearchUsage | None:
        """Settles the usage of the session as this run recorded it (ledger, daily tokens) and returns it. A failure
        is logged: usage accounting never fails a research."""
        if self._accounting is None:
            return None
        try:
            return await self._accounting.settle(ran)
        except Exception as exc:
            log.warning("usage_not_settled %s: %s", ran.session_id, error_text(exc))
            return None

    async def _end(
        self,
        session_id: str,
        status: SessionStatus,
        future: asyncio.Future[ResearchResult],
        error: BaseException | None,
        reason: str | None = None,
        notes: PendingEvents | None = None,
    ) -> None:
        """Ends the session with its terminal event, after the run's events not written yet (``notes``)."""
        extra = {"reason": reason} if reason else {}
        events = [terminal_event(status, **extra)]
        if notes is not None:
            with contextlib.suppress(Exception):  # a failed background write: the session ends all the same
                events = await notes.take(*events)
        try:
            await self._store.end(session_id, status, events, reason=reason)
            self._events_written(session_id)
        except Exception as exc:
            log.error("session_end_not_written %s: %s", session_id, error_text(exc))
            error = error or exc
        if error is not None and not future.done():
            future.set_exception(error)
            future.exception()  # retrieved here: nobody may be waiting for it

    async def _watch_for_stalls(self, session_id: str, heard: list[float]) -> None:
        """A ``session.stalled`` event each time the run has reported nothing for ``stall_seconds``."""
        stall = self.settings.stall_seconds
        while True:
            await asyncio.sleep(max(heard[0] + stall - time.monotonic(), stall / 10))
            silent = time.monotonic() - heard[0]
            if silent >= stall:
                heard[0] = time.monotonic()
                with contextlib.suppress(Exception):
                    await self._store.append_events(
                        session_id, [NewEvent("session.stalled", {"seconds": round(silent)})]
                    )
                    self._events_written(session_id)

    async def _drive(
        self, ran: ResearchSession, request: ResearchRequest, resume: bool, heard: list[float], notes: PendingEvents
    ) -> ResearchResult:
        """Runs (or resumes) the research, committing each stage with its event (one transaction) as the graph
        reports it, and into ``ran`` (which stays the session as stored, whatever ends the run); the other events (a
        stage starting) are written in batches, before the next stage's."""
        session_id = ran.session_id
        stream = self._orchestrator.stream(request, run_id=session_id, resume=resume)
        async with contextlib.aclosing(stream):
            async for progress in stream:
                heard[0] = time.monotonic()
                event = event_of(progress)
                if isinstance(progress, ExpertFinished):
                    events = await notes.take(event)
                    await self._sessions.record_expert(session_id, progress.expert, progress.outcome, events)
                    ran.expert_outcomes[progress.expert] = progress.outcome
                    self._events_written(session_id)
                elif isinstance(progress, StageFinished):
                    debate = progress.stage == "debate"
                    record = self._sessions.record_debate if debate else self._sessions.record_verdict
                    await record(session_id, progress.outcome, await notes.take(event))
                    if debate:
                        ran.debate = progress.outcome
                    else:
                        ran.judge = progress.outcome
                    self._events_written(session_id)
                elif isinstance(progress, ResearchFinished):  # what ``notes`` still holds is written with the end
                    if resume:
                        await self._record_what_the_checkpoint_had(ran, progress.result)
                    return progress.result
                elif event is not None:
                    notes.add(event)
        raise ResumeUnavailableError(f"research {session_id} ended without a result")

    async def _record_what_the_checkpoint_had(self, ran: ResearchSession, result: ResearchResult) -> None:
        """Stages the checkpoint holds that the session had not recorded (the coordinator died in between), each
        with its event; ``ran`` is then the session as stored."""
        session_id = ran.session_id
        stored = await self._sessions.get(session_id) or ran
        for item in result.expert_results:
            if item.expert_type.value not in stored.expert_outcomes and item.status == "success":
                outcome = ExpertOutcome("success", item.data)
                event = expert_event(item.expert_type.value, outcome)
                await self._sessions.record_expert(session_id, item.expert_type.value, outcome, [event])
        if stored.debate.status == "pending" and result.debate_outcome is not None:
            debate = StageOutcome("success", data=result.debate_outcome)
            await self._sessions.record_debate(session_id, debate, [stage_event("debate", debate)])
        if stored.judge.status == "pending" and result.verdict is not None:
            verdict = StageOutcome("success", data=result.verdict)
            await self._sessions.record_verdict(session_id, verdict, [stage_event("verdict", verdict)])
        if (now := await self._sessions.get(session_id)) is not None:
            ran.expert_outcomes, ran.debate, ran.judge = dict(now.expert_outcomes), now.debate, now.judge


def request_of(session: ResearchSession) -> ResearchRequest:
    """The request a stored session runs: what it asked, with what it carries from a retry's source (the results
    stored before it first ran, and a debate already recorded as succeeded)."""
    return ResearchRequest(
        symbol=session.symbol,
        experts=[ExpertType(e) for e in session.experts],
        options=session.options,
        skip_debate=session.skip_debate,
        analysis_date=session.analysis_date,
        language=session.written_in,
        carried_results=session.successful_results,
        carried_failures=carried_failures(session),
        carried_debate_outcome=session.debate_outcome if session.debate_succeeded else None,
        token_budget=session.token_budget,
    )


def carried_failures(session: ResearchSession) -> dict[str, ExpertResultItem]:
    """The session's experts refused for good, as a retry carries them (not asked again)."""
    return {
        e: ExpertResultItem(expert_type=ExpertType(e), status="failed", error=o.error, failure=o.failure)
        for e, o in session.permanent_failures.items()
    }


def first_unfinished_stage(session: ResearchSession) -> str:
    if any(e not in session.expert_outcomes for e in session.experts):
        return "experts"
    if not session.skip_debate and session.debate.status == "pending":
        return "debate"
    if not session.skip_debate and session.judge.status == "pending":
        return "verdict"
    return "end"
