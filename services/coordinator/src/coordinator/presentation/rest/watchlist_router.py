"""Watchlists and their schedules (``shared_contracts.watchlists``).

- ``POST/GET /api/v1/coordinator/watchlists``; ``GET/PUT/DELETE …/watchlists/{id}``;
- ``POST …/watchlists/{id}/run`` — 202 + the batch (``Location``);
- ``POST/GET …/watchlists/{id}/schedules``; ``GET/DELETE …/watchlists/{id}/schedules/{schedule_id}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse, Response

from coordinator.application.services.schedule_service import ScheduleService, ScheduleState
from coordinator.application.services.session_query_service import DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE
from coordinator.application.services.watchlist_service import WatchlistService
from coordinator.domain.model.watchlist import Watchlist
from coordinator.presentation.rest.batch_router import BatchServiceDep, accepted
from coordinator.presentation.rest.dependencies import ViewerDep, WorkflowDep
from service_kit.request_id import current_request_id
from shared_contracts.batches import BatchAccepted
from shared_contracts.problems import ProblemDetail
from shared_contracts.watchlists import (
    ScheduleBody,
    ScheduleList,
    ScheduleRunView,
    ScheduleView,
    WatchlistBody,
    WatchlistLinks,
    WatchlistPage,
    WatchlistRunBody,
    WatchlistView,
)

router = APIRouter(prefix="/api/v1/coordinator", tags=["watchlists"])
PREFIX = "/api/v1/coordinator"


async def get_watchlists(workflow: WorkflowDep) -> WatchlistService:
    return workflow.watchlists


async def get_schedules(workflow: WorkflowDep) -> ScheduleService:
    return workflow.schedules


WatchlistsDep = Annotated[WatchlistService, Depends(get_watchlists)]
SchedulesDep = Annotated[ScheduleService, Depends(get_schedules)]
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "`code` watchlist_not_found: no such watchlist of the caller's."}
}
_INVALID: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ProblemDetail,
        "description": "`code` unknown_symbols (`unknown_symbols` lists them), invalid_symbol (naming its place), "
        "symbols_empty, invalid_watchlist (a blank name).",
    },
    409: {"model": ProblemDetail, "description": "`code` watchlist_name_taken."},
    413: {"model": ProblemDetail, "description": "`code` batch_too_large: more than 1,000 symbols."},
}


@router.post(
    "/watchlists",
    operation_id="createWatchlist",
    status_code=201,
    response_model=WatchlistView,
    responses=_INVALID,
    summary="Keep a named list of symbols",
)
async def create_watchlist(body: WatchlistBody, service: WatchlistsDep, viewer: ViewerDep) -> JSONResponse:
    watchlist = await service.create(body.name, body.symbols, viewer)
    view = _view(watchlist)
    return JSONResponse(
        view.model_dump(mode="json", by_alias=True), status_code=201, headers={"Location": view.links.self_}
    )


@router.get(
    "/watchlists", operation_id="listWatchlists", response_model=WatchlistPage, summary="The caller's watchlists"
)
async def list_watchlists(
    service: WatchlistsDep,
    viewer: ViewerDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = DEFAULT_PAGE_SIZE,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> WatchlistPage:
    watchlists, total = await service.page(viewer, offset=offset, limit=limit)
    return WatchlistPage(items=[_view(w) for w in watchlists], total=total, limit=limit, offset=offset)


@router.get(
    "/watchlists/{watchlist_id}",
    operation_id="getWatchlist",
    response_model=WatchlistView,
    responses=_NOT_FOUND,
    summary="A watchlist",
)
async def get_watchlist(
    watchlist_id: str, service: WatchlistsDep, viewer: ViewerDep, batches: BatchServiceDep
) -> WatchlistView:
    watchlist = await service.get(watchlist_id, viewer)
    runs, _ = await batches.page(viewer, offset=0, limit=1, watchlist_id=watchlist.watchlist_id)
    return _view(watchlist, runs[0].batch.batch_id if runs else None)


@router.put(
    "/watchlists/{watchlist_id}",
    operation_id="updateWatchlist",
    response_model=WatchlistView,
    responses={**_NOT_FOUND, **_INVALID},
    summary="Rename a watchlist or change its symbols",
)
async def update_watchlist(
    watchlist_id: str, body: WatchlistBody, service: WatchlistsDep, viewer: ViewerDep
) -> WatchlistView:
    return _view(await service.update(watchlist_id, body.name, body.symbols, viewer))


@router.delete(
    "/watchlists/{watchlist_id}",
    operation_id="deleteWatchlist",
    status_code=204,
    responses=_NOT_FOUND,
    summary="Delete a watchlist and its schedules (its runs stay)",
)
async def delete_watchlist(watchlist_id: str, service: WatchlistsDep, viewer: ViewerDep) -> Response:
    await service.delete(watchlist_id, viewer)
    return Response(status_code=204)


@router.post(
    "/watchlists/{watchlist_id}/run",
    operation_id="runWatchlist",
    status_code=202,
    response_model=BatchAccepted,
    responses={
        **_NOT_FOUND,
        400: {
            "model": ProblemDetail,
            "description": "`code` invalid_request (analysis_date), analysis_date_in_future, invalid_language, "
            "invalid_schedule (a channel that is not the caller's).",
        },
        429: {"model": ProblemDetail, "description": "`code` token_quota_exceeded (`Retry-After`)."},
        503: {"model": ProblemDetail, "description": "`code` queue_full (`Retry-After`)."},
    },
    summary="Research a watchlist now (a batch; default date: the last trading day with data)",
)
async def run_watchlist(
    watchlist_id: str, service: WatchlistsDep, viewer: ViewerDep, body: WatchlistRunBody | None = None
) -> JSONResponse:
    body = body or WatchlistRunBody()
    state = await service.run(
        watchlist_id,
        viewer,
        analysis_date=body.analysis_date,
        channels=body.channels,
        language=body.language,
        request_id=current_request_id(),
    )
    return accepted(state)


@router.post(
    "/watchlists/{watchlist_id}/schedules",
    operation_id="createSchedule",
    status_code=201,
    response_model=ScheduleView,
    responses={
        **_NOT_FOUND,
        400: {
            "model": ProblemDetail,
            "description": "`code` invalid_schedule: the cron, the time zone, the calendar or a channel, named.",
        },
    },
    summary="Research a watchlist at each slot of a cron (trading days only, by default)",
)
async def create_schedule(
    watchlist_id: str, body: ScheduleBody, service: SchedulesDep, viewer: ViewerDep
) -> JSONResponse:
    state = await service.create(
        watchlist_id,
        viewer,
        cron=body.cron,
        timezone=body.timezone,
        trading_days_only=body.trading_days_only,
        calendar=body.calendar,
        channels=body.channels,
    )
    view = _schedule_view(state)
    location = f"{PREFIX}/watchlists/{watchlist_id}/schedules/{view.schedule_id}"
    return JSONResponse(view.model_dump(mode="json"), status_code=201, headers={"Location": location})


@router.get(
    "/watchlists/{watchlist_id}/schedules",
    operation_id="listSchedules",
    response_model=ScheduleList,
    responses=_NOT_FOUND,
    summary="A watchlist's schedules",
)
async def list_schedules(watchlist_id: str, service: SchedulesDep, viewer: ViewerDep) -> ScheduleList:
    return ScheduleList(items=[_schedule_view(s) for s in await service.list(watchlist_id, viewer)])


_SCHEDULE_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "`code` watchlist_not_found or schedule_not_found."}
}


@router.get(
    "/watchlists/{watchlist_id}/schedules/{schedule_id}",
    operation_id="getSchedule",
    response_model=ScheduleView,
    responses=_SCHEDULE_NOT_FOUND,
    summary="A schedule: its next fire times and its last runs with their batches",
)
async def get_schedule(watchlist_id: str, schedule_id: str, service: SchedulesDep, viewer: ViewerDep) -> ScheduleView:
    return _schedule_view(await service.get(watchlist_id, schedule_id, viewer))


@router.delete(
    "/watchlists/{watchlist_id}/schedules/{schedule_id}",
    operation_id="deleteSchedule",
    status_code=204,
    responses=_SCHEDULE_NOT_FOUND,
    summary="Stop a schedule",
)
async def delete_schedule(watchlist_id: str, schedule_id: str, service: SchedulesDep, viewer: ViewerDep) -> Response:
    await service.delete(watchlist_id, schedule_id, viewer)
    return Response(status_code=204)


def _view(watchlist: Watchlist, last_batch_id: str | None = None) -> WatchlistView:
    own = f"{PREFIX}/watchlists/{watchlist.watchlist_id}"
    return WatchlistView(
        watchlist_id=watchlist.watchlist_id,
        name=watchlist.name,
        symbols=list(watchlist.symbols),
        created_at=watchlist.created_at,
        updated_at=watchlist.updated_at,
        last_batch_id=last_batch_id,
        links=WatchlistLinks(
            self_=own,
            run=f"{own}/run",
            schedules=f"{own}/schedules",
            batches=f"{PREFIX}/batches?watchlist_id={watchlist.watchlist_id}",
        ),
    )


def _schedule_view(state: ScheduleState) -> ScheduleView:
    schedule = state.schedule
    return ScheduleView(
        schedule_id=schedule.schedule_id,
        watchlist_id=schedule.watchlist_id,
        cron=schedule.cron,
        timezone=schedule.timezone,
        trading_days_only=schedule.trading_days_only,
        calendar=schedule.calendar,
        channels=list(schedule.channels),
        created_at=schedule.created_at,
        next_fire_times=state.next_fire_times,
        last_runs=[
            ScheduleRunView(
                slot=run.slot, fired_at=run.fired_at, batch_id=run.batch_id, batch_status=status, error=run.error
            )
            for run, status in state.last_runs
        ],
    )
