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

from fastapi import APIRouter, Query

from coordinator.application.services.session_query_service import DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE
from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.presentation.rest.dependencies import (
    OutcomeServiceDep,
    ResearchServiceDep,
    SessionQueriesDep,
    ViewerDep,
)
from coordinator.presentation.rest.errors import ALL_FAILED_FOR_THE_CALLER, ResearchFailureProblem
from coordinator.presentation.rest.research_schemas import to_response_body
from coordinator.presentation.rest.session_schemas import to_detail
from shared_contracts.coordinator import ResearchResponseBody, SessionDetail, SessionPage, SessionStatus
from shared_contracts.problems import ProblemDetail
from shared_contracts.service.request_id import current_request_id

router = APIRouter(prefix="/api/v1/coordinator", tags=["sessions"])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "No such session (`code` session_not_found)."}
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


@router.get("/sessions", response_model=SessionPage, summary="Research sessions, newest first")
async def list_sessions(
    queries: SessionQueriesDep,
    viewer: ViewerDep,
    symbol: Annotated[str | None, Query(description="Only this symbol (case-insensitive).")] = None,
    status: Annotated[SessionStatus | None, Query(description="Only sessions with this status.")] = None,
    limit: Annotated[
        int, Query(ge=1, description=f"Page size; at most {MAX_PAGE_SIZE} (a larger value is capped).")
    ] = DEFAULT_PAGE_SIZE,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Sessions to skip.")] = 0,
) -> SessionPage:
    page = await queries.list_sessions(viewer, symbol=symbol, status=status, limit=limit, offset=offset)
    return SessionPage.model_validate(page, from_attributes=True)


@router.get(
    "/sessions/{session_id}",
    response_model=SessionDetail,
    responses=_NOT_FOUND,
    summary="One research session: the request, every stage's outcome (raw data and errors), the verdict and "
    "how it did (outcome)",
)
async def get_session(
    session_id: str, queries: SessionQueriesDep, outcomes: OutcomeServiceDep, viewer: ViewerDep
) -> SessionDetail:
    session = await queries.get_session(canonical_session_id(session_id), viewer)
    return to_detail(session, await outcomes.outcome_of(session))


@router.post(
    "/research/{session_id}/retry",
    response_model=ResearchResponseBody,
    responses=_RETRY_RESPONSES,
    summary="Retry a session: re-run only what failed, keep what succeeded (a new session)",
)
async def retry_research(session_id: str, service: ResearchServiceDep, viewer: ViewerDep) -> ResearchResponseBody:
    result = await service.retry(canonical_session_id(session_id), viewer, request_id=current_request_id())
    return to_response_body(result)


def canonical_session_id(raw: str) -> str:
    """Session ids are UUIDs in their lower-case text form; any other spelling of one names the same session
    (anything that is not a UUID names none: 404)."""
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise SessionNotFoundError(raw) from None
