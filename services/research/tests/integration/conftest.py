"""The research app through its HTTP edge (lifespan entered, ASGI transport), on the shipped snapshot."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from research.container import build_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.main import create_app
from research.settings import Settings


@pytest.fixture
async def client(snapshot: OfflineSnapshotProvider) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(_env_file=None, analysis_engine="rules", log_json=False)  # type: ignore[call-arg]
    app = create_app(settings, container=build_container(settings, provider=snapshot))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            yield http
