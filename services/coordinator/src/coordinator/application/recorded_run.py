"""Runs a research request inside a stored session: created before, each stage committed as it
finishes, finished with the overall status after (or ``failed`` / ``interrupted`` when the run
itself broke). Shared by the research use case and the retry use case."""

from __future__ import annotations

import asyncio
import contextlib

from coordinator.application.progress_recorder import SessionProgressRecorder
from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.model.session import ResearchSession, SessionStatus
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository


async def run_in_session(
    orchestrator: IResearchOrchestrationPort,
    sessions: ISessionRepository,
    session: ResearchSession,
    request: ResearchRequest,
) -> ResearchResult:
    await sessions.create(session)
    listener = SessionProgressRecorder(sessions, session.session_id)
    try:
        result = await orchestrator.run(request, listener)
    except asyncio.CancelledError:
        await _finish_quietly(sessions, session.session_id, "interrupted")
        raise
    except Exception:
        await _finish_quietly(sessions, session.session_id, "failed")
        raise
    await sessions.finish(session.session_id, result.overall_status)
    return result.model_copy(update={"session_id": session.session_id, "retry_count": session.retry_count})


async def _finish_quietly(sessions: ISessionRepository, session_id: str, status: SessionStatus) -> None:
    """Best effort: the original error matters more than a failure to record it."""
    with contextlib.suppress(Exception):
        await sessions.finish(session_id, status)
