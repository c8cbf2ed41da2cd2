"""Batches: many symbols researched as of one day, ranked together (``shared_contracts.batches``).

- ``POST /api/v1/coordinator/batches`` — 202 + ``Location``; 400 for a malformed request, 413 beyond 1,000 symbols;
- ``GET  /api/v1/coordinator/batches`` — the caller's batches, newest first, paged;
- ``GET  /api/v1/coordinator/batches/{batch_id}`` — progress and the items ranked by score, best first;
- ``GET  /api/v1/coordinator/batches/{batch_id}/results`` — each item's research as ``POST …/research`` answers it;
- ``GET  /api/v1/coordinator/batches/{batch_id}/events`` — ``batch.progress`` events, then one terminal event
  (numbered past every progress event: a ``Last-Event-ID`` at or past it is answered ``204 No Content``);
- ``POST /api/v1/coordinator/batches/{batch_id}/cancel`` — ends it and its items not ended yet ``cancelled``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from coordinator.application.services.batch_service import BatchCommand, BatchService, BatchState
from coordinator.application.services.research_orchestration_service import result_of
from coordinator.application.services.session_query_service import DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE
from coordinator.domain.exceptions import AllExpertsFailedError, SessionStoreUnavailableError
from coordinator.domain.model.session import ResearchSession
from coordinator.presentation.rest.dependencies import ContainerDep, ViewerDep, event_stream_slot
from coordinator.presentation.rest.errors import STREAMS_REFUSED, all_failed_problem
from coordinator.presentation.rest.event_streams import ENDED_RESPONSE, LastEventIdDep, StreamEnded
from coordinator.presentation.rest.research_schemas import to_response_body
from service_kit.request_id import current_request_id
from shared_contracts.batches import (
    BatchAccepted,
    BatchItemBody,
    BatchPage,
    BatchProgressBody,
    BatchRequestBody,
    BatchResultItem,
    BatchResults,
    BatchSummary,
    BatchView,
    batch_links,
)
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail

router = APIRouter(prefix="/api/v1/coordinator", tags=["batches"])
MAX_RESULTS_PAGE = 200


async def get_batch_service(container: ContainerDep) -> BatchService:
    if container.batches is None:
        raise SessionStoreUnavailableError(
            "Batches need the SQL session store (DATABASE_URL); this coordinator has none."
        )
    return container.batches


BatchServiceDep = Annotated[BatchService, Depends(get_batch_service)]
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "No such batch of the caller's (`code` batch_not_found)."}
}
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Items to skip.")]


@router.post(
    "/batches",
    operation_id="submitBatch",
    status_code=202,
    response_model=BatchAccepted,
    responses={
        400: {
            "model": ProblemDetail,
            "description": "`code` symbols_empty, invalid_symbol (naming the symbol's place), unknown_expert, "
            "duplicate_expert, experts_empty, invalid_language, invalid_request (analysis_date not YYYY-MM-DD), "
            "analysis_date_in_future, malformed_json.",
        },
        413: {"model": ProblemDetail, "description": "`code` batch_too_large: more than 1,000 symbols."},
        429: {"model": ProblemDetail, "description": "`code` token_quota_exceeded (`Retry-After`)."},
        503: {"model": ProblemDetail, "description": "`code` queue_full (`Retry-After`) or session_store_unavailable."},
    },
    summary="Research many symbols as of one day and rank them",
)
async def submit_batch(body: BatchRequestBody, service: BatchServiceDep, viewer: ViewerDep) -> JSONResponse:
    command = BatchCommand(
        symbols=body.symbols,
        analysis_date=body.analysis_date,
        experts=body.experts,
        token_budget=body.token_budget,
        language=body.language,
        request_id=current_request_id(),
        client_id=viewer.client_id,
    )
    return accepted(await service.submit(command))


@router.get("/batches", operation_id="listBatches", response_model=BatchPage, summary="The caller's batches")
async def list_batches(
    service: BatchServiceDep,
    viewer: ViewerDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="Batches per page.")] = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
    watchlist_id: Annotated[str | None, Query(max_length=64, description="Only this watchlist's runs.")] = None,
) -> BatchPage:
    states, total = await service.page(viewer, offset=offset, limit=limit, watchlist_id=watchlist_id)
    return BatchPage(items=[_summary(s) for s in states], total=total, limit=limit, offset=offset)


@router.get(
    "/batches/{batch_id}",
    operation_id="getBatch",
    response_model=BatchView,
    responses=_NOT_FOUND,
    summary="A batch: its progress and its items ranked by score",
)
async def get_batch(batch_id: str, service: BatchServiceDep, viewer: ViewerDep) -> BatchView:
    return batch_view(await service.get(batch_id, viewer))


@router.get(
    "/batches/{batch_id}/results",
    operation_id="getBatchResults",
    response_model=BatchResults,
    responses=_NOT_FOUND,
    summary="Each item's research, as POST /research answers it, in the order asked",
)
async def get_batch_results(
    batch_id: str,
    service: BatchServiceDep,
    viewer: ViewerDep,
    limit: Annotated[int, Query(ge=1, le=MAX_RESULTS_PAGE, description="Items per page.")] = 100,
    offset: Offset = 0,
) -> Response:
    sessions, total = await service.results(batch_id, viewer, offset=offset, limit=limit)
    page = BatchResults(items=[_result(s) for s in sessions], total=total, limit=limit, offset=offset)
    # Serialised once, as built: a page of full researches is too large to be validated a second time.
    return Response(page.model_dump_json(by_alias=True), media_type="application/json")


@router.post(
    "/batches/{batch_id}/cancel",
    operation_id="cancelBatch",
    response_model=BatchView,
    responses={
        **_NOT_FOUND,
        409: {"model": ProblemDetail, "description": "`code` batch_finished: it had ended (not cancelled)."},
    },
    summary="Cancel a batch: it and its items not ended yet end cancelled",
)
async def cancel_batch(batch_id: str, service: BatchServiceDep, viewer: ViewerDep) -> BatchView:
    return batch_view(await service.cancel(batch_id, viewer))


async def visible_batch(batch_id: str, service: BatchServiceDep, viewer: ViewerDep, seen: LastEventIdDep) -> BatchState:
    """The batch, read before the stream starts (another client's is a 404 here too), unless the client reconnects
    after its terminal event (``StreamEnded``: 204)."""
    state = await service.get(batch_id, viewer, with_items=False)
    if seen is not None and state.batch.finished and seen >= terminal_event_id(state):
        raise StreamEnded
    return state


def terminal_event_id(state: BatchState) -> int:
    """The terminal event's number: one more than the batch's size, past every ``batch.progress`` (numbered by
    the items ended), so a client that saw the last progress but not the end is still told the end."""
    return state.progress.total + 1


@router.get(
    "/batches/{batch_id}/events",
    operation_id="getBatchEvents",
    response_class=EventSourceResponse,
    dependencies=[Depends(event_stream_slot)],
    responses={
        200: {
            "description": "`text/event-stream`: `batch.progress` ({status, done, total, failed}) each time items "
            "end, then one terminal event: batch.completed, batch.partial, batch.failed or batch.cancelled. `id` is "
            "the number of items ended (the terminal event's: the batch's size + 1)."
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
    summary="A batch's progress (SSE) until it ends",
)
async def batch_events(
    state: Annotated[BatchState, Depends(visible_batch)],
    service: BatchServiceDep,
    viewer: ViewerDep,
    seen: LastEventIdDep,
) -> AsyncIterator[ServerSentEvent]:
    async for now in service.follow(state.batch.batch_id, viewer):
        progress = now.progress
        if not now.batch.finished and seen is not None and progress.done <= seen:
            continue  # the reconnecting client has had this progress
        data = {"status": now.batch.status, "done": progress.done, "total": progress.total, "failed": progress.failed}
        if now.batch.finished:
            yield ServerSentEvent(id=str(terminal_event_id(now)), event=f"batch.{now.batch.status}", data=data)
        else:
            yield ServerSentEvent(id=str(progress.done), event="batch.progress", data=data)


def _summary(state: BatchState) -> BatchSummary:
    batch, progress = state.batch, state.progress
    return BatchSummary(
        batch_id=batch.batch_id,
        status=batch.status,
        analysis_date=batch.analysis_date.isoformat(),
        experts=list(batch.experts),
        progress=BatchProgressBody(done=progress.done, total=progress.total, failed=progress.failed),
        created_at=batch.created_at,
        completed_at=batch.completed_at,
        watchlist_id=batch.watchlist_id,
        schedule_id=batch.schedule_id,
        links=batch_links(batch.batch_id),
    )


def batch_view(state: BatchState) -> BatchView:
    """The batch as ``GET /batches/{id}`` answers it."""
    items = [BatchItemBody.model_validate(i, from_attributes=True) for i in state.items]
    previous = state.previous.batch_id if state.previous is not None else None
    return BatchView(**_summary(state).model_dump(by_alias=True), items=items, previous_batch_id=previous)


def accepted(state: BatchState) -> JSONResponse:
    """The 202 answer to a batch stored: its summary and its ``Location``."""
    body = BatchAccepted.model_validate(_summary(state).model_dump(by_alias=True))
    headers = {"Location": body.links.self_}
    return JSONResponse(body.model_dump(mode="json", by_alias=True), status_code=202, headers=headers)


def _result(session: ResearchSession) -> BatchResultItem:
    item = {"symbol": session.symbol, "session_id": session.session_id, "status": session.status}
    if session.status not in ("completed", "partial", "failed"):
        return BatchResultItem.model_validate(item)
    result = result_of(session)
    research = to_response_body(result)
    if result.overall_status != "failed":
        return BatchResultItem.model_validate({**item, "http_status": 200, "research": research})
    problem = all_failed_problem(AllExpertsFailedError.for_result(result))
    return BatchResultItem.model_validate(
        {**item, "http_status": problem["status"], "research": research, "problem": problem}
    )
