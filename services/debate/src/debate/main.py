"""Service entry point: ``uvicorn --factory debate.main:create_app --port 8002``."""

from __future__ import annotations

from fastapi import FastAPI

from debate.api.routes import ROUTERS
from debate.container import DebateContainer, open_container
from debate.settings import Settings
from service_kit.app_factory import container_lifespan, container_readiness, create_service_app
from service_kit.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: DebateContainer | None = None) -> FastAPI:
    """The lifespan opens the container from settings unless one is given (tests)."""
    resolved = settings or (container.settings if container else settings_of_this_process(Settings))
    return create_service_app(
        service="debate",
        title="Debate service",
        description="Bull and bear advocates argue over expert results in parallel; a resolution settles it.",
        settings=resolved,
        routers=ROUTERS,
        lifespan=container_lifespan(container, lambda: open_container(resolved)),
        readiness=container_readiness(DebateContainer.readiness, not_built={"debate_service": "not started"}),
        quota_path="/api/v1/debate/run",
        stop_work_on_disconnect=True,
    )
