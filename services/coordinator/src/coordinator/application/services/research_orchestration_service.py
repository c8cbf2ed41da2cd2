"""The research use case: a research, or a retry of a stored one, run inside a stored session.

The session is created (``running``) before anything runs, each stage is committed as it finishes, and it is
finished with the overall status, or ``failed`` (``interrupted`` on cancellation) when the run itself broke.
Every expert failing is reported after that as an error carrying the full result (``AllExpertsFailedError``,
or the subclass naming the caller's mistake when every expert failed for it).

A retry re-runs only what failed in its source session (``running`` → 409 ``session_running``):

- some experts failed (or never reported, for an ``interrupted`` session): those experts, with the source's
  options and analysis date; the successful results are carried; debate and judge run on the merged results;
- every expert succeeded, the debate failed (or never ran): debate and judge;
- every expert and the debate succeeded, the verdict failed: the judge only (the debate is carried);
- everything succeeded: nothing → 409 ``not_retryable``, unless the session was ``interrupted``.

The new session has ``retry_count`` = source + 1 and ``retried_from`` = source; a session is retried at most
once (the store enforces it: ``RetryAlreadyStartedError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable
from datetime import date
from typing import Any

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.request_validation import validate_command
from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.exceptions import (
    AllExpertsFailedError,
    SessionNotFoundError,
    SessionNotRetryableError,
    SessionRunningError,
)
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.progress import ExpertFinished, ResearchFinished, StageFinished
from coordinator.domain.model.session import ResearchSession, StageOutcome
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.experts import is_iso_date


class ResearchOrchestrationService:
    def __init__(
        self,
        orchestrator: IResearchOrchestrationPort,
        sessions: ISessionRepository,
        *,
        today: Callable[[], date] = date.today,
    ) -> None:
        self._orchestrator = orchestrator
        self._sessions = sessions
        self._today = today

    async def execute(self, command: ResearchCommand) -> ResearchResult:
        """Raises a ``ResearchRequestError`` (before anything runs) for a bad request."""
        request = validate_command(command, self._today)
        session = self._session(request, request_id=command.request_id, client_id=command.client_id)
        return await self._run(session, request)

    async def retry(self, session_id: str, viewer: Viewer, *, request_id: str | None = None) -> ResearchResult:
        """Raises ``SessionNotFoundError`` (also for a session ``viewer`` may not see) and a
        ``SessionConflictError`` (409) before anything runs. The retry belongs to the source's client."""
        source = await self._sessions.get(session_id)
        if source is None or not viewer.may_see(source):
            raise SessionNotFoundError(session_id)
        request = plan_retry(source, self._today)
        session = self._session(
            request,
            retry_count=source.retry_count + 1,
            retried_from=source.session_id,
            request_id=request_id,
            client_id=source.client_id,
            # What is carried is stored with the new session from its first commit, with its original audit
            # data (the orchestrator does not report carried stages): the new session tells the whole story.
            expert_outcomes={e: o for e, o in source.expert_outcomes.items() if e in request.carried_results},
            debate=source.debate if request.carried_debate_outcome is not None else StageOutcome(),
        )
        return await self._run(session, request)

    def _session(self, request: ResearchRequest, **recorded: Any) -> ResearchSession:
        """A new session for ``request``, with what else is ``recorded`` of it."""
        asked = (request.symbol, [e.value for e in request.experts], request.options, request.skip_debate)
        return ResearchSession(str(uuid.uuid4()), *asked, request.analysis_date, **recorded)

    async def _run(self, session: ResearchSession, request: ResearchRequest) -> ResearchResult:
        """Raises an ``AllExpertsFailedError`` (after the session is finished) when no expert succeeded."""
        await self._sessions.create(session)
        try:
            result = await self._drive(session.session_id, request)
        except (Exception, asyncio.CancelledError) as exc:
            with contextlib.suppress(Exception):  # the original error matters more than a failure to record it
                cancelled = isinstance(exc, asyncio.CancelledError)
                await self._sessions.finish(session.session_id, "interrupted" if cancelled else "failed")
            raise
        await self._sessions.finish(session.session_id, result.overall_status)
        result = result.model_copy(update={"session_id": session.session_id, "retry_count": session.retry_count})
        if result.overall_status == "failed":
            raise AllExpertsFailedError.for_result(result)
        return result

    async def _drive(self, session_id: str, request: ResearchRequest) -> ResearchResult:
        """Runs the research, committing each stage to the session as the graph reports it."""
        async for progress in self._orchestrator.stream(request, run_id=session_id):
            if isinstance(progress, ExpertFinished):
                await self._sessions.record_expert(session_id, progress.expert, progress.outcome)
            elif isinstance(progress, StageFinished) and progress.stage == "debate":
                await self._sessions.record_debate(session_id, progress.outcome)
            elif isinstance(progress, StageFinished):
                await self._sessions.record_verdict(session_id, progress.outcome)
            elif isinstance(progress, ResearchFinished):
                return progress.result
        raise RuntimeError("the research ended without a result")


def plan_retry(source: ResearchSession, today: Callable[[], date] = date.today) -> ResearchRequest:
    """The request that re-runs only what failed in ``source``; raises a ``SessionConflictError`` when there
    is nothing to re-run now. The analysis date is the source's (a session stored before dates were recorded:
    its technical analyst's ``analysis_date`` option, else today, as such a session's experts had used)."""
    if source.status == "running":
        raise SessionRunningError(source.session_id)
    # A source retried already gets through here: storing the new session raises the precise conflict.
    if not source.failed_stages and source.status != "interrupted":
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
        carried_results=source.successful_results,
        carried_debate_outcome=source.debate_outcome if not source.failed_experts and source.debate_succeeded else None,
    )
