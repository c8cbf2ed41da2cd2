"""What the routes take from the request: the container's use cases (``app.state.container``) and the viewer.
Each dependency is a coroutine: FastAPI runs a plain function in its thread pool, a hop per request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request

from coordinator.application.services.market_reference_service import MarketReferenceService
from coordinator.application.services.outcome_service import SessionOutcomeService
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.services.session_event_feed import SessionEventFeed
from coordinator.application.services.session_query_service import SessionQueryService
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.container import CoordinatorContainer, Workflow
from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.domain.model.viewer import Viewer
from service_kit.authentication import client_of


async def get_container(request: Request) -> CoordinatorContainer:
    container: CoordinatorContainer = request.app.state.container
    return container


ContainerDep = Annotated[CoordinatorContainer, Depends(get_container)]


async def get_workflow(container: ContainerDep) -> Workflow:
    """Watchlists, schedules, channels and deliveries; a 503 without the SQL session store they are kept in."""
    if container.workflow is None:
        raise SessionStoreUnavailableError(
            "Watchlists, schedules and notifications need the SQL session store (DATABASE_URL); this coordinator "
            "has none."
        )
    return container.workflow


WorkflowDep = Annotated[Workflow, Depends(get_workflow)]


async def get_research_service(container: ContainerDep) -> ResearchOrchestrationService:
    return container.research_service


async def get_session_queries(container: ContainerDep) -> SessionQueryService:
    return container.session_queries


async def get_outcome_service(container: ContainerDep) -> SessionOutcomeService:
    return container.outcome_service


async def get_market_reference(container: ContainerDep) -> MarketReferenceService:
    return container.market_reference


async def get_event_feed(container: ContainerDep) -> SessionEventFeed:
    return container.event_feed


async def get_usage_accounting(container: ContainerDep) -> UsageAccounting:
    return container.usage_accounting


async def get_viewer(request: Request) -> Viewer:
    """The caller's own sessions, or every client's for an ``admin`` key (``AUTH_MODE=none``: the local user,
    who sees all)."""
    client = client_of(request)
    return Viewer(client.audit_id, sees_all=client.is_admin)


ResearchServiceDep = Annotated[ResearchOrchestrationService, Depends(get_research_service)]
SessionQueriesDep = Annotated[SessionQueryService, Depends(get_session_queries)]
OutcomeServiceDep = Annotated[SessionOutcomeService, Depends(get_outcome_service)]
ViewerDep = Annotated[Viewer, Depends(get_viewer)]
MarketReferenceDep = Annotated[MarketReferenceService, Depends(get_market_reference)]
EventFeedDep = Annotated[SessionEventFeed, Depends(get_event_feed)]
UsageAccountingDep = Annotated[UsageAccounting, Depends(get_usage_accounting)]


async def event_stream_slot(container: ContainerDep, viewer: ViewerDep) -> AsyncIterator[None]:
    """One of the viewer's client's event-stream slots, held until the stream ends (``StreamSlots``)."""
    with container.stream_slots.hold(viewer.client_id):
        yield
