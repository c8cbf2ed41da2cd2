"""Service entry point: ``uvicorn --factory research.main:create_app``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from research.api.routes import routers
from research.container import ResearchContainer, build_container
from research.presentation.rest.errors import STATUS_BY_EXCEPTION
from research.settings import Settings
from shared_contracts.service import app_factory
from shared_contracts.service.settings import load_settings


def create_app(settings: Settings | None = None, container: ResearchContainer | None = None) -> FastAPI:
    """Settings come from the environment unless given; the lifespan builds the container (loading the
    offline snapshot once) unless one is given, and closes what it built."""
    settings = settings or load_settings(Settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        built = container or build_container(settings)
        app.state.container = built
        try:
            yield
        finally:
            if container is None:
                await built.aclose()

    async def readiness(app: FastAPI) -> dict[str, str]:
        built: ResearchContainer | None = getattr(app.state, "container", None)
        if built is None:
            return {"market_data": "container not built"}
        symbols = await built.provider.available_symbols()
        data = "ok" if symbols is None or symbols else "the offline snapshot has no symbols"
        return {"market_data": data, "engine": "ok"}

    return app_factory.create_service_app(
        service="research",
        title="research",
        description="Five research experts over real market data, with an LLM engine and a rules engine.",
        settings=settings,
        routers=routers,
        status_by_exception=STATUS_BY_EXCEPTION,
        lifespan=lifespan,
        readiness=readiness,
    )
