"""Service entry point: ``uvicorn --factory debate.main:create_app --port 8002``."""

from __future__ import annotations

from contextlib import aclosing

from fastapi import FastAPI

from debate.api.routes import routers
from debate.container import DebateContainer, Settings, build_container
from shared_contracts.service.app_factory import container_lifespan, container_readiness, create_service_app
from shared_contracts.service.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: DebateContainer | None = None) -> FastAPI:
    """Build the app; the lifespan builds the container from settings unless one is given (tests)."""
    if settings is None:
        settings = container.settings if container is not None else settings_of_this_process(Settings)
    resolved = settings

    def on_start(app: FastAPI, built: DebateContainer) -> None:
        app.state.debate_service = built.debate_service

    async def readiness(built: DebateContainer) -> dict[str, str]:
        engine = built.debate_service.engine
        return {"debate_service": "ok", f"engine_{engine.kind}": "ok"}

    return create_service_app(
        service="debate",
        title="Debate service",
        description="Bull and bear advocates argue over expert results in parallel; a resolution settles it.",
        settings=settings,
        routers=routers(),
        lifespan=container_lifespan(container, lambda: aclosing(build_container(resolved)), on_start=on_start),
        readiness=container_readiness(readiness, not_built={"debate_service": "not started"}),
        quota_path="/api/v1/debate/run",
    )
