"""Retry a research session: re-run only what failed, keep what succeeded, store a new session.

What is re-run, given the source session (``running`` → 409 ``session_running``):

- some experts failed (or never reported, for an ``interrupted`` session): those experts, with the
  source's options and analysis date; the successful results are carried; debate and judge run on the
  merged results;
- every expert succeeded, the debate failed (or never ran): debate and judge;
- every expert and the debate succeeded, the verdict failed: the judge only (the debate is carried);
- everything succeeded (``skip_debate``: every expert succeeded): nothing → 409 ``not_retryable``,
  unless the session was ``interrupted`` (it never finished, so it is re-run to a finished session).

The analysis date is the source's (a session stored before dates were recorded: its technical analyst's
``analysis_date`` option, else today, as such a session's experts had used). The new session has
``retry_count`` = source + 1 and ``retried_from`` = source; it runs through the same path as a first run
(``run_in_session``). A session is retried at most once — the store
enforces it (``RetryAlreadyStartedError``), so concurrent retries of one session cannot both run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date

from coordinator.application.recorded_run import run_in_session
from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.exceptions import (
    AllExpertsFailedError,
    SessionNotFoundError,
    SessionNotRetryableError,
    SessionRunningError,
)
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.experts import is_iso_date


def _new_session_id() -> str:
    return str(uuid.uuid4())


def plan_retry(source: ResearchSession, today: Callable[[], date] = date.today) -> ResearchRequest:
    """The request that re-runs only what failed in ``source``; raises a ``SessionConflictError``
    when there is nothing to re-run now."""
    if source.status == "running":
        raise SessionRunningError(source.session_id)
    carried = source.successful_results
    all_experts_ok = not source.failed_experts
    # A source retried already gets through here: storing the new session raises the precise conflict
    # (already_retried, or retry_in_progress while that retry runs).
    if not source.failed_stages and source.status != "interrupted":
        what = "every expert succeeded" + ("" if source.skip_debate else ", and so did the debate and the verdict")
        raise SessionNotRetryableError(source.session_id, what)
    return ResearchRequest(
        symbol=source.symbol,
        experts=[ExpertType(e) for e in source.experts],
        options=source.options,
        skip_debate=source.skip_debate,
        analysis_date=_analysis_date_of(source, today),
        carried_results=carried,
        carried_debate_outcome=source.debate_outcome if all_experts_ok and source.debate_succeeded else None,
    )


def _analysis_date_of(source: ResearchSession, today: Callable[[], date]) -> date:
    if source.analysis_date is not None:
        return source.analysis_date
    option = source.options.get(ExpertType.TECHNICAL_ANALYST.value, {}).get("analysis_date")
    if isinstance(option, str) and is_iso_date(option):
        return date.fromisoformat(option)
    return today()


class ResearchRetryService:
    def __init__(
        self,
        orchestrator: IResearchOrchestrationPort,
        sessions: ISessionRepository,
        *,
        today: Callable[[], date] = date.today,
        new_session_id: Callable[[], str] = _new_session_id,
    ) -> None:
        self._orchestrator = orchestrator
        self._sessions = sessions
        self._today = today
        self._new_session_id = new_session_id

    async def retry(self, session_id: str, viewer: Viewer, *, request_id: str | None = None) -> ResearchResult:
        """Raises ``SessionNotFoundError`` (also for a session ``viewer`` may not see), a ``SessionConflictError``
        (409) before anything runs, and an ``AllExpertsFailedError`` (after the new session is finished) when no
        expert succeeded. The retry belongs to the source's client."""
        source = await self._sessions.get(session_id)
        if source is None or not viewer.may_see(source):
            raise SessionNotFoundError(session_id)
        request = plan_retry(source, self._today)
        session = ResearchSession(
            session_id=self._new_session_id(),
            symbol=source.symbol,
            experts=list(source.experts),
            options=source.options,
            skip_debate=source.skip_debate,
            analysis_date=request.analysis_date,
            retry_count=source.retry_count + 1,
            retried_from=source.session_id,
            request_id=request_id,
            client_id=source.client_id,
            # What is carried is stored with the new session from its first commit, with its original
            # audit data (the orchestrator does not report carried stages), so the new session alone
            # tells the whole story.
            expert_outcomes={e: o for e, o in source.expert_outcomes.items() if e in request.carried_results},
        )
        if request.carried_debate_outcome is not None:
            session.debate = source.debate
        result = await run_in_session(self._orchestrator, self._sessions, session, request)
        if result.overall_status == "failed":
            raise AllExpertsFailedError.for_result(result)
        return result
