"""History, audit and retry of research sessions:

- ``GET  /api/v1/coordinator/sessions`` — filter by symbol and status, newest first, paginated;
- ``GET  /api/v1/coordinator/sessions/{session_id}`` — everything stored, each expert's raw data and error, and
  the verdict's ``outcome`` on the bars known now (``unavailable`` when the research service cannot be asked);
- ``POST /api/v1/coordinator/research/{session_id}/retry`` — re-run only what failed (same response
  contract as ``POST /research``, 404/422/500 when every expert failed included; 404 unknown session, 409
  nothing to retry now).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from coordinator.application.outcome_service import SessionOutcomeService
from coordinator.application.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.session_query_service import (
    DEFAULT_PAGE_SIZE,
    MAX_OFFSET,
    MAX_PAGE_SIZE,
    SessionQueryService,
)
from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.outcome import SessionOutcome
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.model.viewer import Viewer
from coordinator.presentation.rest.caller import get_viewer
from coordinator.presentation.rest.errors import ResearchFailureProblem
from coordinator.presentation.rest.outcome_schemas import to_outcome_record
from coordinator.presentation.rest.research_routes import ALL_FAILED_FOR_THE_CALLER, get_research_service
from coordinator.presentation.rest.research_schemas import to_response_body
from coordinator.presentation.rest.scorecard_routes import get_outcome_service
from shared_contracts.coordinator import (
    ExpertOutcomeRecord,
    ResearchResponseBody,
    SessionDetail,
    SessionPage,
    SessionStatus,
    SessionSummary,
    StageRecord,
)
from shared_contracts.problems import ProblemDetail
from shared_contracts.service.request_id import current_request_id

router = APIRouter(prefix="/api/v1/coordinator", tags=["sessions"])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "No such session (`code` session_not_found)."},
}
_RETRY_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ProblemDetail,
        "description": "No such session (`code` session_not_found), or every expert re-run failed because the "
        "research service has no data for the symbol (`code` symbol_not_found, with the full response body).",
    },
    422: ALL_FAILED_FOR_THE_CALLER[422],
    409: {
        "model": ProblemDetail,
        "description": "Nothing to retry now: `code` not_retryable (completed, debate and verdict succeeded), "
        "session_running, retry_in_progress or already_retried (a session is retried once; the problem's "
        "`retry_session_id` names its retry — retry the newest session of the chain).",
    },
    500: {
        "model": ResearchFailureProblem,
        "description": "Every expert failed again, not all for one mistake of the caller (`code` "
        "all_experts_failed, with the full response body).",
    },
    503: {"model": ProblemDetail, "description": "The session store is unavailable."},
}


def get_session_queries(request: Request) -> SessionQueryService:
    service: SessionQueryService = request.app.state.container.session_queries
    return service


@router.get("/sessions", response_model=SessionPage, summary="Research sessions, newest first")
async def list_sessions(
    queries: Annotated[SessionQueryService, Depends(get_session_queries)],
    viewer: Annotated[Viewer, Depends(get_viewer)],
    symbol: Annotated[str | None, Query(description="Only this symbol (case-insensitive).")] = None,
    status: Annotated[SessionStatus | None, Query(description="Only sessions with this status.")] = None,
    limit: Annotated[
        int, Query(ge=1, description=f"Page size; at most {MAX_PAGE_SIZE} (a larger value is capped).")
    ] = DEFAULT_PAGE_SIZE,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Sessions to skip.")] = 0,
) -> SessionPage:
    page = await queries.list_sessions(viewer, symbol=symbol, status=status, limit=limit, offset=offset)
    return SessionPage(
        items=[to_summary(s) for s in page.items], total=page.total, limit=page.limit, offset=page.offset
    )


@router.get(
    "/sessions/{session_id}",
    response_model=SessionDetail,
    responses=_NOT_FOUND,
    summary="One research session: the request, every stage's outcome (raw data and errors), the verdict and "
    "how it did (outcome)",
)
async def get_session(
    session_id: str,
    queries: Annotated[SessionQueryService, Depends(get_session_queries)],
    outcomes: Annotated[SessionOutcomeService, Depends(get_outcome_service)],
    viewer: Annotated[Viewer, Depends(get_viewer)],
) -> SessionDetail:
    session = await queries.get_session(canonical_session_id(session_id), viewer)
    return to_detail(session, await outcomes.outcome_of(session))


@router.post(
    "/research/{session_id}/retry",
    response_model=ResearchResponseBody,
    responses=_RETRY_RESPONSES,
    summary="Retry a session: re-run only what failed, keep what succeeded (a new session)",
)
async def retry_research(
    session_id: str,
    service: Annotated[ResearchOrchestrationService, Depends(get_research_service)],
    viewer: Annotated[Viewer, Depends(get_viewer)],
) -> ResearchResponseBody:
    result = await service.retry(canonical_session_id(session_id), viewer, request_id=current_request_id())
    return to_response_body(result)


def canonical_session_id(raw: str) -> str:
    """Session ids are UUIDs in their lower-case text form; any other spelling of one names the same session
    (anything that is not a UUID names none: 404)."""
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise SessionNotFoundError(raw) from None


def to_summary(session: ResearchSession) -> SessionSummary:
    return SessionSummary(
        session_id=session.session_id,
        symbol=session.symbol,
        analysis_date=session.analysis_date,
        experts=list(session.experts),
        status=session.status,
        retry_count=session.retry_count,
        retried_from=session.retried_from,
        retried_by=session.retried_by,
        stages_to_retry=session.stages_to_retry,
        created_at=session.created_at,
        updated_at=session.updated_at,
    )


def to_detail(session: ResearchSession, outcome: SessionOutcome | None = None) -> SessionDetail:
    return SessionDetail(
        **to_summary(session).model_dump(),
        request={
            "symbol": session.symbol,
            "analysis_date": session.analysis_date.isoformat() if session.analysis_date is not None else None,
            "experts": list(session.experts),
            "options": session.options,
            "skip_debate": session.skip_debate,
        },
        request_id=session.request_id,
        expert_results={
            expert: ExpertOutcomeRecord(
                status=o.status, data=o.data, error=o.error, duration_ms=o.duration_ms, attempts=o.attempts
            )
            for expert, o in session.expert_outcomes.items()
        },
        debate=StageRecord(
            status=session.debate.status, error=session.debate.error, duration_ms=session.debate.duration_ms
        ),
        debate_outcome=session.debate_outcome,
        judge=StageRecord(
            status=session.judge.status, error=session.judge.error, duration_ms=session.judge.duration_ms
        ),
        verdict=session.verdict,
        completed_at=session.completed_at,
        outcome=to_outcome_record(outcome),
    )
