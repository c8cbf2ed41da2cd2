"""Service entry point: ``uvicorn --factory coordinator.main:create_app`` (configured by the environment)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager

from fastapi import FastAPI

from coordinator.api.routes import routers
from coordinator.container import CoordinatorContainer, build_container
from coordinator.infrastructure.persistence.retention import RetentionPurge
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.presentation.rest.errors import install_research_failure_handler
from coordinator.settings import Settings
from shared_contracts.service.app_factory import container_lifespan, container_readiness, create_service_app
from shared_contracts.service.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: CoordinatorContainer | None = None) -> FastAPI:
    """Without ``container`` the lifespan opens the session store (migrating it, registering this
    coordinator instance, marking the sessions of coordinators that are gone as interrupted, and purging
    expired sessions on a schedule), builds the container, and closes both on shutdown; a given container
    belongs to the caller."""
    settings = settings or settings_of_this_process(Settings)

    @asynccontextmanager
    async def open_container() -> AsyncIterator[CoordinatorContainer]:
        sessions, close_store = await open_session_store(
            settings.database_url, lease_seconds=settings.session_lease_seconds
        )
        purge = RetentionPurge(
            sessions,
            retention_days=settings.session_retention_days,
            interval_seconds=settings.session_purge_interval_seconds,
        )
        try:
            if settings.session_retention_days:
                purge.start()
            async with aclosing(build_container(settings, sessions=sessions)) as built:
                yield built
        finally:
            await purge.stop()
            await close_store()

    app = create_service_app(
        service="coordinator",
        title="Coordinator",
        description="Fans a research request out to the selected experts in parallel (LangGraph Send), "
        "then runs the debate and the judge. It only orchestrates.",
        settings=settings,
        routers=routers(),
        lifespan=container_lifespan(container, open_container),
        readiness=container_readiness(CoordinatorContainer.readiness),
        accepted_scopes=("research", "admin"),
        quota_path="/api/v1/coordinator/research",
    )
    install_research_failure_handler(app)
    return app
