"""Service entry point: ``uvicorn --factory research.main:create_app``."""

from __future__ import annotations

from fastapi import FastAPI

from research.api.routes import ROUTERS
from research.container import ResearchContainer, open_container
from research.settings import Settings
from service_kit.app_factory import container_lifespan, container_readiness, create_service_app
from service_kit.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: ResearchContainer | None = None) -> FastAPI:
    """The lifespan opens the container from settings unless one is given (tests)."""
    resolved = settings or (container.settings if container else settings_of_this_process(Settings))
    return create_service_app(
        service="research",
        title="research",
        description="Five research experts over real market data, with an LLM engine and a rules engine.",
        settings=resolved,
        routers=ROUTERS,
        lifespan=container_lifespan(container, lambda: open_container(resolved)),
        readiness=container_readiness(ResearchContainer.readiness, not_built={"market_data": "container not built"}),
        quota_path="/api/v1/research/experts",
        stop_work_on_disconnect=True,
    )
