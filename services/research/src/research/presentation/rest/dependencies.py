"""What the routes take from the container (``app.state.container``).
Each dependency is a coroutine: FastAPI runs a plain function in its thread pool, a hop per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from research.application.services.expert_dispatcher import ExpertDispatcher
from research.container import ResearchContainer
from research.domain.ports.market_data import IMarketDataProvider
from service_kit.languages import ByLanguage
from shared_contracts.engine import EngineInfo


async def get_container(request: Request) -> ResearchContainer:
    container: ResearchContainer = request.app.state.container
    return container


ContainerDep = Annotated[ResearchContainer, Depends(get_container)]


async def get_expert_dispatchers(container: ContainerDep) -> ByLanguage[ExpertDispatcher]:
    return container.dispatchers


async def get_market_data(container: ContainerDep) -> IMarketDataProvider:
    return container.provider


async def get_engine(container: ContainerDep) -> EngineInfo:
    return container.engine


ExpertDispatchersDep = Annotated[ByLanguage[ExpertDispatcher], Depends(get_expert_dispatchers)]
"""The experts of a request's ``language``: ``dispatchers(body.language)``."""
MarketDataDep = Annotated[IMarketDataProvider, Depends(get_market_data)]
EngineDep = Annotated[EngineInfo, Depends(get_engine)]
