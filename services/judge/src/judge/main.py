"""Service entry point: ``uvicorn --factory judge.main:create_app``."""

from __future__ import annotations

from fastapi import FastAPI

from judge.api.routes import ROUTERS
from judge.container import JudgeContainer, open_container
from judge.settings import Settings
from service_kit.app_factory import container_lifespan, container_readiness, create_service_app
from service_kit.settings import settings_of_this_process


def create_app(settings: Settings | None = None, container: JudgeContainer | None = None) -> FastAPI:
    """The lifespan opens the container from settings unless one is given (tests)."""
    resolved = settings or (container.settings if container else settings_of_this_process(Settings))
    return create_service_app(
        service="judge",
        title="Judge service",
        description="A verdict (action, position size, stop loss, take profit, horizon) from a debate outcome.",
        settings=resolved,
        routers=ROUTERS,
        lifespan=container_lifespan(container, lambda: open_container(resolved)),
        readiness=container_readiness(JudgeContainer.readiness, not_built={"judge_service": "not started"}),
        quota_path="/api/v1/judge/verdict",
        stop_work_on_disconnect=True,
    )
