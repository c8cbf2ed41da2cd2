"""The research use case: validate, run the orchestration (inside a stored session when a repository
is wired), and report every expert failing as an error carrying the full result (``AllExpertsFailedError``,
or the subclass naming the caller's mistake when every expert failed for it)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date

from coordinator.application.dtos import ResearchCommand
from coordinator.application.recorded_run import run_in_session
from coordinator.application.request_validation import validate_command
from coordinator.domain.dtos.research_dtos import ResearchResult
from coordinator.domain.exceptions import AllExpertsFailedError
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository


def _new_session_id() -> str:
    return str(uuid.uuid4())


class ResearchOrchestrationService:
    def __init__(
        self,
        orchestrator: IResearchOrchestrationPort,
        sessions: ISessionRepository | None = None,
        *,
        today: Callable[[], date] = date.today,
        new_session_id: Callable[[], str] = _new_session_id,
    ) -> None:
        self._orchestrator = orchestrator
        self._sessions = sessions
        self._today = today
        self._new_session_id = new_session_id

    async def execute(self, command: ResearchCommand) -> ResearchResult:
        """Raises a ``ResearchRequestError`` (before anything runs) for a bad request, and an
        ``AllExpertsFailedError`` (after the session is finished) when no expert succeeded."""
        request = validate_command(command, self._today)
        if self._sessions is None:
            result = await self._orchestrator.run(request)
        else:
            session = ResearchSession(
                session_id=self._new_session_id(),
                symbol=request.symbol,
                experts=[e.value for e in request.experts],
                options=request.options,
                skip_debate=request.skip_debate,
                analysis_date=request.analysis_date,
                request_id=command.request_id,
                client_id=command.client_id,
            )
            result = await run_in_session(self._orchestrator, self._sessions, session, request)
        if result.overall_status == "failed":
            raise AllExpertsFailedError.for_result(result)
        return result
