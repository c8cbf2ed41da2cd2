"""Service entry point: ``uvicorn --factory judge.main:create_app``."""

from __future__ import annotations

from contextlib import aclosing

import structlog
from fastapi import FastAPI

from judge.api.routes import ROUTERS
from judge.container import JudgeContainer, build_container
from judge.settings import JudgeSettings
from shared_contracts.service.app_factory import container_lifespan, create_service_app
from shared_contracts.service.settings import settings_of_this_process

log = structlog.get_logger(__name__)


def create_app(settings: JudgeSettings | None = None, container: JudgeContainer | None = None) -> FastAPI:
    """Build the judge app; the container is built in the lifespan (and closed there) unless one is given."""
    resolved = settings or (container.settings if container else settings_of_this_process(JudgeSettings))

    def on_start(app: FastAPI, built: JudgeContainer) -> None:
        app.state.judge_service = built.judge_service
        log.info(
            "judge_started",
            engine="llm" if resolved.uses_llm else "rules",
            fallback_to_rules=resolved.llm_fallback_to_rules,
            max_position_percent=resolved.judge_max_position_percent,
        )

    def on_stop(app: FastAPI) -> None:
        app.state.judge_service = None

    async def readiness(app: FastAPI) -> dict[str, str]:
        ready = getattr(app.state, "judge_service", None) is not None
        return {"judge_service": "ok" if ready else "not started"}

    return create_service_app(
        service="judge",
        title="Judge service",
        description="A verdict (action, position size, stop loss, take profit, horizon) from a debate outcome.",
        settings=resolved,
        routers=ROUTERS,
        lifespan=container_lifespan(
            container, lambda: aclosing(build_container(resolved)), on_start=on_start, on_stop=on_stop
        ),
        readiness=readiness,
        quota_path="/api/v1/judge/verdict",
    )
