"""Service entry point: ``uvicorn --factory research.main:create_app``."""

from __future__ import annotations

from contextlib import aclosing

from fastapi import FastAPI

from research.api.routes import routers
from research.container import ResearchContainer, build_container
from research.settings import Settings
from shared_contracts.service import app_factory
from shared_contracts.service.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: ResearchContainer | None = None) -> FastAPI:
    """Settings come from the environment unless given; the lifespan builds the container (loading the
    offline snapshot once) unless one is given, and closes what it built."""
    settings = settings or settings_of_this_process(Settings)

    async def readiness(built: ResearchContainer) -> dict[str, str]:
        symbols = await built.provider.available_symbols()
        data = "ok" if symbols is None or symbols else "the offline snapshot has no symbols"
        return {"market_data": data, "engine": "ok"}

    return app_factory.create_service_app(
        service="research",
        title="research",
        description="Five research experts over real market data, with an LLM engine and a rules engine.",
        settings=settings,
        routers=routers,
        lifespan=app_factory.container_lifespan(container, lambda: aclosing(build_container(settings))),
        readiness=app_factory.container_readiness(readiness, not_built={"market_data": "container not built"}),
        quota_path="/api/v1/research/experts",
    )
