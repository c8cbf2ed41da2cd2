"""Channels and the outbox's deliveries (``shared_contracts.watchlists``).

- ``POST/GET /api/v1/coordinator/channels``; ``GET/DELETE …/channels/{id}``; ``POST …/channels/{id}/test``;
- ``GET /api/v1/coordinator/deliveries?status=``; ``GET …/deliveries/{id}``; ``POST …/deliveries/{id}/retry``.

A channel's secret is never answered (``has_secret``), except a webhook secret generated for it, once, in the
201; chat bots' URLs (which hold their keys) are answered masked.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse, Response

from coordinator.application.services.channel_service import ChannelService
from coordinator.application.services.delivery_service import DeliveryService
from coordinator.application.services.session_query_service import DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE
from coordinator.domain.model.channel import Channel
from coordinator.domain.model.delivery import Delivery
from coordinator.presentation.rest.dependencies import ViewerDep, WorkflowDep
from shared_contracts.problems import ProblemDetail
from shared_contracts.watchlists import (
    ChannelBody,
    ChannelCreated,
    ChannelPage,
    ChannelTestResult,
    ChannelView,
    DeliveryPage,
    DeliveryStatus,
    DeliveryView,
)

router = APIRouter(prefix="/api/v1/coordinator", tags=["notifications"])
PREFIX = "/api/v1/coordinator"


async def get_channels(workflow: WorkflowDep) -> ChannelService:
    return workflow.channels


async def get_deliveries(workflow: WorkflowDep) -> DeliveryService:
    return workflow.deliveries


ChannelsDep = Annotated[ChannelService, Depends(get_channels)]
DeliveriesDep = Annotated[DeliveryService, Depends(get_deliveries)]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
_CHANNEL_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "`code` channel_not_found: no such channel of the caller's."}
}
_DELIVERY_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ProblemDetail, "description": "`code` delivery_not_found: no such delivery of the caller's."}
}


@router.post(
    "/channels",
    operation_id="createChannel",
    status_code=201,
    response_model=ChannelCreated,
    responses={
        400: {
            "model": ProblemDetail,
            "description": "`code` invalid_channel: a target or a secret that does not fit the kind, named.",
        }
    },
    summary="Add a place notifications go (webhook, Slack, Feishu, WeCom, Telegram, e-mail)",
)
async def create_channel(body: ChannelBody, service: ChannelsDep, viewer: ViewerDep) -> JSONResponse:
    channel, generated = await service.create(
        viewer, kind=body.kind, target=body.target, secret=body.secret, name=body.name, language=body.language
    )
    view = ChannelCreated(**_view(channel).model_dump(), secret=generated)
    location = f"{PREFIX}/channels/{channel.channel_id}"
    return JSONResponse(view.model_dump(mode="json"), status_code=201, headers={"Location": location})


@router.get("/channels", operation_id="listChannels", response_model=ChannelPage, summary="The caller's channels")
async def list_channels(
    service: ChannelsDep, viewer: ViewerDep, limit: Limit = DEFAULT_PAGE_SIZE, offset: Offset = 0
) -> ChannelPage:
    channels, total = await service.page(viewer, offset=offset, limit=limit)
    return ChannelPage(items=[_view(c) for c in channels], total=total, limit=limit, offset=offset)


@router.get(
    "/channels/{channel_id}",
    operation_id="getChannel",
    response_model=ChannelView,
    responses=_CHANNEL_NOT_FOUND,
    summary="A channel (its secret withheld)",
)
async def get_channel(channel_id: str, service: ChannelsDep, viewer: ViewerDep) -> ChannelView:
    return _view(await service.get(channel_id, viewer))


@router.delete(
    "/channels/{channel_id}",
    operation_id="deleteChannel",
    status_code=204,
    responses=_CHANNEL_NOT_FOUND,
    summary="Delete a channel (its deliveries not yet sent end failed)",
)
async def delete_channel(channel_id: str, service: ChannelsDep, viewer: ViewerDep) -> Response:
    await service.delete(channel_id, viewer)
    return Response(status_code=204)


@router.post(
    "/channels/{channel_id}/test",
    operation_id="testChannel",
    response_model=ChannelTestResult,
    responses=_CHANNEL_NOT_FOUND,
    summary="Send a test message now and say how the receiver answered",
)
async def test_channel(channel_id: str, service: ChannelsDep, viewer: ViewerDep) -> ChannelTestResult:
    outcome = await service.test(channel_id, viewer)
    return ChannelTestResult(delivered=outcome.delivered, status_code=outcome.status_code, error=outcome.error)


@router.get(
    "/deliveries",
    operation_id="listDeliveries",
    response_model=DeliveryPage,
    summary="The caller's notifications and how their delivery went, newest first",
)
async def list_deliveries(
    service: DeliveriesDep,
    viewer: ViewerDep,
    status: Annotated[DeliveryStatus | None, Query(description="Only pending, delivered or failed ones.")] = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> DeliveryPage:
    deliveries, total = await service.page(viewer, status, offset=offset, limit=limit)
    return DeliveryPage(items=[_delivery(d) for d in deliveries], total=total, limit=limit, offset=offset)


@router.get(
    "/deliveries/{delivery_id}",
    operation_id="getDelivery",
    response_model=DeliveryView,
    responses=_DELIVERY_NOT_FOUND,
    summary="A notification's delivery",
)
async def get_delivery(delivery_id: str, service: DeliveriesDep, viewer: ViewerDep) -> DeliveryView:
    return _delivery(await service.get(delivery_id, viewer))


@router.post(
    "/deliveries/{delivery_id}/retry",
    operation_id="retryDelivery",
    status_code=202,
    response_model=DeliveryView,
    responses={
        **_DELIVERY_NOT_FOUND,
        409: {"model": ProblemDetail, "description": "`code` delivery_not_failed: only a failed one is retried."},
    },
    summary="Send a failed notification again (its attempts counted afresh, the same webhook-id)",
)
async def retry_delivery(delivery_id: str, service: DeliveriesDep, viewer: ViewerDep) -> JSONResponse:
    view = _delivery(await service.retry(delivery_id, viewer))
    return JSONResponse(view.model_dump(mode="json"), status_code=202)


def _view(channel: Channel) -> ChannelView:
    return ChannelView(
        channel_id=channel.channel_id,
        kind=channel.kind,
        target=channel.shown_target,
        name=channel.name,
        language=channel.language,
        has_secret=channel.secret is not None,
        created_at=channel.created_at,
    )


def _delivery(delivery: Delivery) -> DeliveryView:
    return DeliveryView(
        delivery_id=delivery.delivery_id,
        channel_id=delivery.channel_id,
        batch_id=delivery.batch_id,
        watchlist_id=delivery.watchlist_id,
        status=delivery.status,
        attempts=delivery.attempts,
        next_attempt_at=delivery.next_attempt_at if delivery.status == "pending" else None,
        last_error=delivery.last_error,
        last_status_code=delivery.last_status_code,
        created_at=delivery.created_at,
        delivered_at=delivery.delivered_at,
    )
