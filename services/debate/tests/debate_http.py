"""Running the debate app in-process for HTTP tests (lifespan entered, ASGI transport)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

from debate.container import DebateContainer
from debate.main import create_app
from debate.settings import Settings


def rules_settings(**overrides: object) -> Settings:
    values: dict[str, object] = {"analysis_engine": "rules", "log_json": False, **overrides}
    return Settings.model_validate(values)


@asynccontextmanager
async def debate_client(
    settings: Settings | None = None, container: DebateContainer | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings or (container.settings if container else rules_settings()), container=container)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client, app
