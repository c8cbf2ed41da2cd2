"""/healthz (alive), /readyz (dependencies usable) and /metrics (Prometheus: the HTTP requests, and the
tokens and stage durations of ``service_metrics``) for every service."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from prometheus_client import CollectorRegistry
from prometheus_fastapi_instrumentator import Instrumentator
from pydantic import BaseModel, Field

from service_kit.service_metrics import MetricsContextMiddleware, ServiceMetrics

ReadinessCheck = Callable[[FastAPI], Awaitable[dict[str, str]]]
"""Returns {dependency: "ok" | reason}; any value other than "ok" makes /readyz answer 503."""
SeesDetail = Callable[[Request], bool]
"""Whether the caller of /readyz may read why a dependency is not usable (else it reads ``unavailable``)."""
UNAVAILABLE = "unavailable"


class Readiness(BaseModel):
    """The body of every /readyz answer, 200 and 503 alike."""

    status: Literal["ready", "not_ready"]
    service: str
    checks: dict[str, str] = Field(
        description='{dependency: "ok" | why it is not usable} (why: to an admin or service key; else "unavailable")'
    )


_READINESS_ANSWERS: dict[int | str, dict[str, object]] = {
    200: {"model": Readiness, "description": "Every dependency is usable (`status` ready)."},
    503: {"model": Readiness, "description": "A dependency is not usable (`status` not_ready; `checks` says which)."},
}


def install_observability(
    app: FastAPI, service: str, readiness: ReadinessCheck | None = None, *, sees_detail: SeesDetail | None = None
) -> None:
    """``sees_detail``: who may read why a dependency is not usable (None: everyone, ``AUTH_MODE=none``); the
    others read ``unavailable`` for it: the reasons name peers' and the database's errors."""

    @app.get("/healthz", operation_id="getHealth", tags=["ops"], summary="Process is alive")
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "service": service}

    @app.get(
        "/readyz",
        operation_id="getReadiness",
        tags=["ops"],
        summary="Dependencies are usable",
        responses=_READINESS_ANSWERS,
    )
    async def readyz(request: Request) -> JSONResponse:
        checks = await readiness(app) if readiness else {}
        ready = all(v == "ok" for v in checks.values())
        if sees_detail is not None and not sees_detail(request):
            checks = {name: "ok" if value == "ok" else UNAVAILABLE for name, value in checks.items()}
        body = {"status": "ready" if ready else "not_ready", "service": service, "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)

    # One registry per app: several apps in one process (tests chaining services) each count their own.
    registry = CollectorRegistry()
    app.state.metrics_registry = registry
    app.add_middleware(MetricsContextMiddleware, metrics=ServiceMetrics.registered(service, registry))
    Instrumentator(excluded_handlers=["/metrics", "/healthz", "/readyz"], registry=registry).instrument(app).expose(
        app, endpoint="/metrics", include_in_schema=False
    )
