"""Service entry point: ``uvicorn --factory coordinator.main:create_app`` (configured by the environment)."""

from __future__ import annotations

from fastapi import FastAPI

from coordinator.api.routes import ROUTERS
from coordinator.container import CoordinatorContainer, open_container
from coordinator.presentation.console.site import mount_console
from coordinator.presentation.rest.errors import EXCEPTION_HANDLERS
from coordinator.settings import Settings
from service_kit.app_factory import container_lifespan, container_readiness, create_service_app
from service_kit.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: CoordinatorContainer | None = None) -> FastAPI:
    """Without ``container`` the lifespan opens one (``open_container``); a given container is the caller's."""
    settings = settings or settings_of_this_process(Settings)
    app = create_service_app(
        service="coordinator",
        title="Coordinator",
        description="Fans a research request out to the selected experts in parallel (LangGraph Send), "
        "then runs the debate and the judge. It only orchestrates.",
        settings=settings,
        routers=ROUTERS,
        lifespan=container_lifespan(container, lambda: open_container(settings)),
        readiness=container_readiness(CoordinatorContainer.readiness),
        accepted_scopes=("research", "admin"),
        quota_path="/api/v1/coordinator/research",
        exception_handlers=EXCEPTION_HANDLERS,  # every expert failed: the problem plus the full response body
    )
    mount_console(app)  # the web console at /console (static files)
    return app
