"""Service entry point: ``uvicorn --factory coordinator.main:create_app`` (configured by the environment)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from coordinator.api.routes import routers
from coordinator.container import CoordinatorContainer, build_container
from coordinator.presentation.rest.errors import STATUS_BY_EXCEPTION, install_research_failure_handler
from coordinator.settings import Settings
from shared_contracts.service.app_factory import create_service_app
from shared_contracts.service.settings import load_settings


def create_app(settings: Settings | None = None, container: CoordinatorContainer | None = None) -> FastAPI:
    """Without ``container`` the lifespan builds one from ``settings`` and closes it on shutdown; a
    given container belongs to the caller."""
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
        active: CoordinatorContainer = app.state.container
        return await active.readiness()

    app = create_service_app(
        service="coordinator",
        title="Coordinator",
        description="Fans a research request out to the selected experts in parallel (LangGraph Send), "
        "then runs the debate and the judge. It only orchestrates.",
        settings=settings,
        routers=routers(),
        status_by_exception=STATUS_BY_EXCEPTION,
        lifespan=lifespan,
        readiness=readiness,
    )
    install_research_failure_handler(app)
    return app
