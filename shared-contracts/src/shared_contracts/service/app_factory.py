"""One way to assemble a service's FastAPI app, so every service has the same edge."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import APIRouter, FastAPI

from shared_contracts.service.logging import configure_logging
from shared_contracts.service.observability import ReadinessCheck, install_observability
from shared_contracts.service.problems import install_problem_handlers
from shared_contracts.service.request_id import RequestIdMiddleware
from shared_contracts.service.settings import ServiceSettings


def create_service_app(
    *,
    service: str,
    title: str,
    description: str,
    settings: ServiceSettings,
    routers: Sequence[APIRouter],
    status_by_exception: Mapping[type[Exception], int],
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[Any]] | None = None,
    readiness: ReadinessCheck | None = None,
) -> FastAPI:
    configure_logging(settings.log_level, json=settings.log_json, service=service)
    app = FastAPI(title=title, description=description, version="0.1.0", lifespan=lifespan)
    app.add_middleware(RequestIdMiddleware)
    install_problem_handlers(app, status_by_exception)
    install_observability(app, service, readiness)
    for router in routers:
        app.include_router(router)
    return app
