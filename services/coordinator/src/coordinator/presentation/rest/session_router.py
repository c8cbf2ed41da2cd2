"""History, audit and retry of research sessions:

- ``GET  /api/v1/coordinator/sessions`` — filter by symbol and status, newest first, paginated;
- ``GET  /api/v1/coordinator/sessions/{session_id}`` — everything stored, each expert's raw data and error, and
  the verdict's ``outcome`` on the bars known now (``unavailable`` when the research service cannot be asked);
- ``POST /api/v1/coordinator/research/{session_id}/retry`` — re-run only what failed (same response
  contract as ``POST /research``, 404/422/500 when every expert failed included; 404 unknown session, 409
  nothing to retry now; ``Prefer: respond-async`` → 202 as for a research);
- ``POST /api/v1/coordinator/sessions/{session_id}/cancel`` — end a queued or running session ``cancelled``;
- ``GET  /api/v1/coordinator/sessions/{session_id}/events`` — its events as ``text/event-stream``: a ``snapshot``
  first, the stored history after ``Last-Event-ID`` / ``?after=`` (default: all), then live events until the
  terminal one; a comment every 15 s keeps idle connections open. A ``Last-Event-ID`` at or past the terminal event
  of a session that has ended is answered ``204 No Content`` (an ``EventSource`` stops reconnecting).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent

from coordinator.application.dtos.scorecard import optional_day
from coordinator.application.services.session_event_feed import snapshot_of
from coordinator.application.services.session_query_service import DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE
from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.session import ResearchSession
from coordinator.presentation.rest.dependencies import (
    EventFeedDep,
    OutcomeServiceDep,
    ResearchServiceDep,
    SessionQueriesDep,
    UsageAccountingDep,
    ViewerDep,
    event_stream_slot,
)
from coordinator.presentation.rest.errors import ALL_FAILED_FOR_THE_CALLER, STREAMS_REFUSED, ResearchFailureProblem
from coordinator.presentation.rest.event_streams import ENDED_RESPONSE, LastEventIdDep, StreamEnded
from coordinator.presentation.rest.job_responses import (
    ASYNC_RESPONSES,
    IdempotencyKeyHeader,
    PreferHeader,
    accepted,
    prefers_async,
)
from coordinator.presentation.rest.research_schemas import to_response_body
from coordinator.presentation.rest.scorecard_router import DAY_OR_BLANK
from coordinator.presentation.rest.session_schemas import to_detail
from service_kit.request_id import current_request_id
from shared_contracts.coordinator import (
    ResearchAccepted,
    ResearchResponseBody,
    SessionDetail,
    SessionPage,
    SessionStatus,
    job_links,
)
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail

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
    202: ASYNC_RESPONSES[202],
    409: {
        "model": ProblemDetail,
        "description": "Nothing to retry now: `code` not_retryable (completed, debate and verdict succeeded; or "
        "the only failures are experts the research service refused for good, 404/422, named in "
        "`permanent_failures`), "
        "session_running, retry_in_progress or already_retried (a session is retried once; the problem's "
        "`retry_session_id` names its retry — retry the newest session of the chain); or "
        "idempotency_key_reused.",
    },
    500: {
        "model": ResearchFailureProblem,
        "description": "Every expert failed again, not all for one mistake of the caller (`code` "
        "all_experts_failed, with the full response body).",
    },
    503: ASYNC_RESPONSES[503],
}
_CANCEL_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_NOT_FOUND,
    409: {
        "model": ProblemDetail,
        "description": "`code` session_finished: it had ended (completed, partial, failed or interrupted).",
    },
}
_EVENT_TYPES = (
    "snapshot, session.queued, session.started, session.resumed, expert.started, expert.completed, expert.failed, "
    "debate.started, debate.completed, debate.failed, debate.skipped, verdict.started, verdict.completed, "
    "verdict.failed, verdict.skipped, session.stalled, and one terminal event: session.completed, session.partial, "
    "session.failed, session.cancelled or session.interrupted"
)


@router.get(
    "/sessions", operation_id="listSessions", response_model=SessionPage, summary="Research sessions, newest first"
)
async def list_sessions(
    queries: SessionQueriesDep,
    viewer: ViewerDep,
    symbol: Annotated[str | None, Query(description="Only this symbol (case-insensitive).")] = None,
    status: Annotated[SessionStatus | None, Query(description="Only sessions with this status.")] = None,
    analysis_date_from: Annotated[
        str | None, DAY_OR_BLANK, Query(description="Only researches made as of this day or later (YYYY-MM-DD).")
    ] = None,
    analysis_date_to: Annotated[
        str | None,
        DAY_OR_BLANK,
        Query(description="Only researches made as of this day or earlier (YYYY-MM-DD; not before the first)."),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, description=f"Page size; at most {MAX_PAGE_SIZE} (a larger value is capped).")
    ] = DEFAULT_PAGE_SIZE,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Sessions to skip.")] = 0,
) -> SessionPage:
    days = optional_day("analysis_date_from", analysis_date_from), optional_day("analysis_date_to", analysis_date_to)
    page = await queries.list_sessions(viewer, symbol=symbol, status=status, days=days, limit=limit, offset=offset)
    return SessionPage.model_validate(page, from_attributes=True)


@router.get(
    "/sessions/{session_id}",
    operation_id="getSession",
    response_model=SessionDetail,
    responses=_NOT_FOUND,
    summary="One research session: the request, every stage's outcome (raw data and errors), the verdict and "
    "how it did (outcome)",
)
async def get_session(
    session_id: str,
    queries: SessionQueriesDep,
    outcomes: OutcomeServiceDep,
    service: ResearchServiceDep,
    viewer: ViewerDep,
    accounting: UsageAccountingDep,
) -> SessionDetail:
    session = await queries.get_session(canonical_session_id(session_id), viewer)
    position = await service.queue_position(session.session_id) if session.status == "queued" else None
    usage = accounting.usage_of(session)
    return to_detail(session, await outcomes.outcome_of(session), queue_position=position, usage=usage)


@router.post(
    "/research/{session_id}/retry",
    operation_id="retryResearch",
    response_model=ResearchResponseBody,
    responses=_RETRY_RESPONSES,
    summary="Retry a session: re-run only what failed, keep what succeeded (a new session)",
)
async def retry_research(
    session_id: str,
    service: ResearchServiceDep,
    viewer: ViewerDep,
    prefer: PreferHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> ResearchResponseBody | JSONResponse:
    source, request_id = canonical_session_id(session_id), current_request_id()
    if prefers_async(prefer):
        submission = await service.submit_retry(source, viewer, request_id=request_id, idempotency_key=idempotency_key)
        return accepted(submission)
    result = await service.retry(source, viewer, request_id=request_id, idempotency_key=idempotency_key)
    return to_response_body(result)


@router.post(
    "/sessions/{session_id}/cancel",
    operation_id="cancelSession",
    status_code=202,
    response_model=ResearchAccepted,
    responses=_CANCEL_RESPONSES,
    summary="Cancel a queued or running session: nothing more is started, in-flight peer calls are cancelled",
)
async def cancel_session(session_id: str, service: ResearchServiceDep, viewer: ViewerDep) -> ResearchAccepted:
    """Idempotent: a cancelled session is answered as it is."""
    session = await service.cancel(canonical_session_id(session_id), viewer)
    return ResearchAccepted(session_id=session.session_id, status=session.status, links=job_links(session.session_id))


async def visible_session(session_id: str, queries: SessionQueriesDep, viewer: ViewerDep) -> ResearchSession:
    """The session, read before the stream starts (another client's is a 404 here too)."""
    return await queries.get_session(canonical_session_id(session_id), viewer)


@dataclass(frozen=True)
class _StreamStart:
    session: ResearchSession
    after: int
    """The event number the stream starts after."""


async def stream_start(
    session: Annotated[ResearchSession, Depends(visible_session)],
    seen: LastEventIdDep,
    after: Annotated[int | None, Query(ge=0, description="Resume after event N (overrides Last-Event-ID).")] = None,
) -> _StreamStart:
    """Where the stream starts, unless the client reconnects after the session's terminal event (``StreamEnded``:
    204). The terminal event is stored with the final status: an ended session's last event is its terminal one."""
    if after is None and seen is not None and session.finished and seen >= session.last_event_seq:
        raise StreamEnded
    return _StreamStart(session, after if after is not None else seen or 0)


@router.get(
    "/sessions/{session_id}/events",
    operation_id="getSessionEvents",
    response_class=EventSourceResponse,
    dependencies=[Depends(event_stream_slot)],
    responses={
        200: {
            "description": f"`text/event-stream`; `id` is the event's number in the session. Events: {_EVENT_TYPES}."
        },
        **ENDED_RESPONSE,
        400: {
            "description": "A `Last-Event-ID` that is not an event number (`code` invalid_request).",
            "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/ProblemDetail"}}},
        },
        404: {
            "description": _NOT_FOUND[404]["description"],
            "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/ProblemDetail"}}},
        },
        429: STREAMS_REFUSED,
    },
    summary="A session's events (SSE): a snapshot, the history, then live events until the terminal one",
)
async def session_events(
    start: Annotated[_StreamStart, Depends(stream_start)], service: ResearchServiceDep, feed: EventFeedDep
) -> AsyncIterator[ServerSentEvent]:
    session, position = start.session, start.after
    queued = await service.queue_position(session.session_id) if session.status == "queued" else None
    yield ServerSentEvent(event="snapshot", data=snapshot_of(session, queued))
    async for event in feed.follow(session.session_id, position):
        # A terminal event made from the status (a session stored before events were) is numbered with the
        # position reached, so a client reconnecting after it is told the stream has ended.
        position = event.seq or position
        yield ServerSentEvent(id=str(position), event=event.type, data=event.data)


def canonical_session_id(raw: str) -> str:
    """Session ids are UUIDs in their lower-case text form; any other spelling of one names the same session
    (anything that is not a UUID names none: 404)."""
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise SessionNotFoundError(raw) from None
