"""The research use case: a research, or a retry of a stored one, run inside a stored session as a job
(``ResearchJobs``): submitted and answered at once (``submit``), or submitted and waited for (``execute``, the
spec's synchronous contract). The session is stored before anything runs, each stage is committed as it finishes,
and it ends with the overall status (or ``failed``/``cancelled``/``interrupted``). Every expert failing is
reported to a synchronous caller as an error carrying the full result (``AllExpertsFailedError``, whose ``reason``
names the caller's mistake when every expert failed for it).

An ``Idempotency-Key`` (per client, for ``IDEMPOTENCY_HOURS``) makes a submission happen once: the same key with
the same request names the first session; with another request it is ``IdempotencyKeyReusedError``.

A retry re-runs only what failed in its source session (``running`` → 409 ``session_running``):

- some experts failed (or never reported, for an ``interrupted`` session): those experts, with the source's
  options and analysis date; the successful results are carried; debate and judge run on the merged results;
- every expert succeeded, the debate failed (or never ran): debate and judge;
- every expert and the debate succeeded, the verdict failed: the judge only (the debate is carried);
- everything succeeded: nothing → 409 ``not_retryable``, unless the session was ``interrupted``.

An expert the research service refused for good (404/422: unknown symbol, no data, too little history) is not
asked again: the retry carries its failure. A session whose only failures are such refusals has nothing to retry
(409 ``not_retryable``, naming them in ``permanent_failures``).

The new session has ``retry_count`` = source + 1 and ``retried_from`` = source; a session is retried at most
once (the store enforces it: ``RetryAlreadyStartedError``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from typing import Any

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.request_validation import validate_command
from coordinator.application.services.research_jobs import ResearchJobs, carried_failures
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.domain.dtos.research_dtos import ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.exceptions import (
    AllExpertsFailedError,
    IdempotencyKeyReusedError,
    IdempotencyKeyTakenError,
    SessionFinishedError,
    SessionNotFoundError,
    SessionNotRetryableError,
    SessionRunningError,
)
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import IDEMPOTENCY_HOURS, ResearchSession, SessionStatus, StageOutcome, utcnow
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.job_store import IJobStore
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.experts import is_iso_date
from shared_contracts.language import Language


@dataclass(frozen=True)
class Submission:
    session_id: str
    status: SessionStatus
    queue_position: int | None
    created: bool
    """False: an earlier submission with the same Idempotency-Key made this session."""


class ResearchOrchestrationService:
    def __init__(
        self,
        jobs: ResearchJobs,
        sessions: ISessionRepository,
        store: IJobStore,
        *,
        today: Callable[[], date] = date.today,
        token_budget: int | None = None,
        accounting: UsageAccounting | None = None,
        language: Language | None = None,
    ) -> None:
        """``token_budget``: RESEARCH_TOKEN_BUDGET, the cap of every research (a request may ask for less);
        ``accounting``: the usage on each result, and the client's daily token quota, which holds a research's budget
        from its submission (given back when it is not queued, or cancelled before it ran); ``language``:
        REPORT_LANGUAGE, the language of a research that names none (None: each peer's own)."""
        self._accounting = accounting
        self._language = language
        self._jobs = jobs
        self._sessions = sessions
        self._store = store
        self._today = today
        self._token_budget = token_budget

    async def execute(self, command: ResearchCommand, idempotency_key: str | None = None) -> ResearchResult:
        """Raises an ``InvalidRequestError`` (400, before anything runs) for a bad request."""
        return await self._result(await self.submit(command, idempotency_key))

    async def submit(self, command: ResearchCommand, idempotency_key: str | None = None) -> Submission:
        request = validate_command(command, self._today, self._language)
        recorded = {
            "client_id": command.client_id,
            "requested_by": command.client_id,
            "token_budget": self._budget(self._token_budget, command.token_budget),
        }
        session = self._session(request, request_id=command.request_id, **recorded)
        return await self._submit(session, idempotency_key, {"research": asdict(command) | {"request_id": None}})

    async def retry(
        self, session_id: str, viewer: Viewer, *, request_id: str | None = None, idempotency_key: str | None = None
    ) -> ResearchResult:
        return await self._result(
            await self.submit_retry(session_id, viewer, request_id=request_id, idempotency_key=idempotency_key)
        )

    async def submit_retry(
        self, session_id: str, viewer: Viewer, *, request_id: str | None = None, idempotency_key: str | None = None
    ) -> Submission:
        """Raises ``SessionNotFoundError`` (also for a session ``viewer`` may not see) and a
        ``SessionConflictError`` (409) before anything runs. The retry belongs to the source's client; who ran it
        (an admin, for another client's session) is ``requested_by``."""
        source = await self._sessions.get(session_id, client_id=viewer.only_client)  # another's: as none (same work)
        if source is None:
            raise SessionNotFoundError(session_id)
        if idempotency_key is not None and (earlier := await self._earlier(source.client_id, idempotency_key)):
            return await self._replayed(earlier, idempotency_key, _hash({"retry": session_id}))
        request = plan_retry(source, self._today)
        session = self._session(
            request,
            retry_count=source.retry_count + 1,
            retried_from=source.session_id,
            request_id=request_id,
            client_id=source.client_id,
            requested_by=viewer.client_id,
            # What is carried is stored with the new session from its first commit, with its original audit
            # data (the orchestrator does not report carried stages): the new session tells the whole story.
            expert_outcomes={
                e: o
                for e, o in source.expert_outcomes.items()
                if e in request.carried_results or e in request.carried_failures
            },
            debate=source.debate if request.carried_debate_outcome is not None else StageOutcome(),
            carried_stages=[*request.carried_results, *(["debate"] if request.carried_debate_outcome else [])],
            token_budget=self._budget(source.token_budget if source.token_budget is not None else self._token_budget),
        )
        return await self._submit(session, idempotency_key, {"retry": session_id})

    async def cancel(self, session_id: str, viewer: Viewer) -> ResearchSession:
        """End a queued or running session ``cancelled`` (again: no change); ``SessionFinishedError`` when it
        ended otherwise."""
        session = await self._sessions.get(session_id, client_id=viewer.only_client)
        if session is None:
            raise SessionNotFoundError(session_id)
        if session.status == "cancelled":
            return session
        if session.finished or not await self._jobs.cancel(session_id):
            ended = await self._sessions.get(session_id) or session
            if ended.status != "cancelled":
                raise SessionFinishedError(session_id, ended.status)
        elif session.status == "queued":  # never ran (a run that started meanwhile settles its own usage)
            await self._release(session)
        return await self._sessions.get(session_id) or session

    async def _release(self, session: ResearchSession) -> None:
        if self._accounting is not None:
            await self._accounting.release([session])

    def _budget(self, *given: int | None) -> int | None:
        """The lowest budget ``given``; with a daily token quota, what the research holds of it."""
        if self._accounting is not None:
            return self._accounting.budget_of(*given)
        budgets = [b for b in given if b is not None]
        return min(budgets) if budgets else None

    async def queue_position(self, session_id: str) -> int | None:
        return await self._store.queue_position(session_id)

    def _session(self, request: ResearchRequest, **recorded: Any) -> ResearchSession:
        """A new session for ``request``, with what else is ``recorded`` of it."""
        asked = (request.symbol, [e.value for e in request.experts], request.options, request.skip_debate)
        return ResearchSession(str(uuid.uuid4()), *asked, request.analysis_date, language=request.language, **recorded)

    async def _submit(self, session: ResearchSession, key: str | None, asked: dict[str, Any]) -> Submission:
        request_hash = _hash(asked)
        if key is not None:
            if (earlier := await self._earlier(session.client_id, key)) is not None:
                return await self._replayed(earlier, key, request_hash)
            session.idempotency_key, session.request_hash = key, request_hash
        if self._accounting is not None:  # a replay above answers the first submission, tokens left or not
            await self._accounting.reserve([session])  # its budget held before it is queued
        try:
            position = await self._jobs.submit(session)
        except IdempotencyKeyTakenError as raced:  # a submission with the same key was stored first
            await self._release(session)
            return await self._replayed(raced.session, raced.key, request_hash)
        except BaseException:  # not queued (queue_full, the store): it holds nothing
            await asyncio.shield(self._release(session))
            raise
        return Submission(session.session_id, "queued", position, created=True)

    async def _earlier(self, client_id: str, key: str) -> ResearchSession | None:
        return await self._store.find_idempotent(client_id, key, utcnow() - timedelta(hours=IDEMPOTENCY_HOURS))

    async def _replayed(self, earlier: ResearchSession, key: str, request_hash: str) -> Submission:
        if earlier.request_hash != request_hash:
            raise IdempotencyKeyReusedError(key, earlier.session_id)
        position = await self.queue_position(earlier.session_id)
        return Submission(earlier.session_id, earlier.status, position, created=False)

    async def _result(self, submission: Submission) -> ResearchResult:
        """Waits for the session's result; raises an ``AllExpertsFailedError`` when no expert succeeded."""
        try:
            result = await self._jobs.result(submission.session_id)  # with its usage, when it ran here
        except SessionFinishedError:
            stored = await self._sessions.get(submission.session_id)
            if stored is None or stored.status not in ("completed", "partial", "failed"):
                raise
            result = result_of(stored)
            if self._accounting is not None:
                result = result.model_copy(update={"usage": self._accounting.usage_of(stored)})
        if result.overall_status == "failed":
            raise AllExpertsFailedError.for_result(result)
        return result


def _hash(asked: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(asked, sort_keys=True, default=str).encode()).hexdigest()


def result_of(session: ResearchSession) -> ResearchResult:
    """The result of a session that ended with an overall status, as stored (it ran on another coordinator)."""
    items = []
    for expert in session.experts:
        outcome = session.expert_outcomes.get(expert)
        if outcome is not None and outcome.status == "success":
            items.append(ExpertResultItem(expert_type=ExpertType(expert), status="success", data=outcome.data))
        else:
            error = (outcome.error if outcome is not None else None) or "the expert did not run"
            failure = outcome.failure if outcome is not None else None
            items.append(
                ExpertResultItem(expert_type=ExpertType(expert), status="failed", error=error, failure=failure)
            )
    return ResearchResult(
        symbol=session.symbol,
        overall_status=session.status,
        analysis_date=session.analysis_date,
        language=session.written_in,
        expert_results=items,
        debate_outcome=session.debate_outcome if session.debate_succeeded else None,
        verdict=session.verdict if session.verdict_succeeded else None,
        session_id=session.session_id,
        retry_count=session.retry_count,
    )


def plan_retry(source: ResearchSession, today: Callable[[], date] = date.today) -> ResearchRequest:
    """The request that re-runs only what failed in ``source``; raises a ``SessionConflictError`` when there
    is nothing to re-run now. The analysis date is the source's (a session stored before dates were recorded:
    its technical analyst's ``analysis_date`` option, else today, as such a session's experts had used); its
    language is the source's."""
    if source.status == "running":
        raise SessionRunningError(source.session_id)
    # A source retried already gets through here: storing the new session raises the precise conflict.
    refused = {e: o.failure.code for e, o in source.permanent_failures.items() if o.failure is not None}
    if not source.retryable_stages and (source.status != "interrupted" or refused):
        if refused:
            named = ", ".join(f"{e} ({code})" for e, code in refused.items())
            what = f"the research service refused {named} for good, and nothing else failed"
            raise SessionNotRetryableError(source.session_id, what, permanent_failures=refused)
        what = "every expert succeeded" + ("" if source.skip_debate else ", and so did the debate and the verdict")
        raise SessionNotRetryableError(source.session_id, what)
    option = source.options.get(ExpertType.TECHNICAL_ANALYST.value, {}).get("analysis_date")
    fallback = date.fromisoformat(option) if isinstance(option, str) and is_iso_date(option) else today()
    return ResearchRequest(
        symbol=source.symbol,
        experts=[ExpertType(e) for e in source.experts],
        options=source.options,
        skip_debate=source.skip_debate,
        analysis_date=source.analysis_date or fallback,
        language=source.written_in,
        carried_results=source.successful_results,
        carried_failures=carried_failures(source),
        carried_debate_outcome=source.debate_outcome
        if not source.retryable_experts and source.debate_succeeded
        else None,
    )
