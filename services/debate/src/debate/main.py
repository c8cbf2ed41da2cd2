"""Service entry point: ``uvicorn --factory debate.main:create_app --port 8002``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from debate.api.routes import routers
from debate.container import DebateContainer, Settings, build_container
from debate.presentation.rest.errors import STATUS_BY_EXCEPTION
from shared_contracts.service.app_factory import create_service_app
from shared_contracts.service.settings import load_settings


def create_app(settings: Settings | None = None, container: DebateContainer | None = None) -> FastAPI:
    """Build the app; the lifespan builds the container from settings unless one is given (tests)."""
    if settings is None:
        settings = container.settings if container is not None else load_settings(Settings)
    resolved = settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        built = container if container is not None else build_container(resolved)
        app.state.container = built
        app.state.debate_service = built.debate_service
        try:
            yield
        finally:
            if container is None:
                await built.aclose()

    async def readiness(app: FastAPI) -> dict[str, str]:
        built: DebateContainer | None = getattr(app.state, "container", None)
        if built is None:
            return {"debate_service": "not started"}
        engine = built.debate_service.engine
        return {"debate_service": "ok", f"engine_{engine.kind}": "ok"}

    return create_service_app(
        service="debate",
        title="Debate service",
        description="Bull and bear advocates argue over expert results in parallel; a resolution settles it.",
        settings=settings,
        routers=routers(),
        status_by_exception=STATUS_BY_EXCEPTION,
        lifespan=lifespan,
        readiness=readiness,
    )
