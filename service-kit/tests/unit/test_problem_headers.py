"""A problem answer keeps the headers of the HTTP exception it answers: ``Allow`` on a 405 (RFC 9110),
``WWW-Authenticate`` on a 401."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import APIRouter, FastAPI, HTTPException

from service_kit.app_factory import create_service_app
from service_kit.settings import ServiceSettings
from shared_contracts.problems import PROBLEM_CONTENT_TYPE


def build_app() -> FastAPI:
    router = APIRouter(prefix="/api/v1/kit")

    @router.post("/things")
    async def create() -> dict[str, str]:
        return {}

    @router.get("/guarded")
    async def guarded() -> dict[str, str]:
        raise HTTPException(401, "Send an API key.", headers={"WWW-Authenticate": 'Bearer realm="kit"'})

    return create_service_app(
        service="kit-headers",
        title="Kit",
        description="d",
        settings=ServiceSettings(log_json=True),
        routers=[router],
    )


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app()), base_url="http://t") as c:
        yield c


async def test_a_method_the_path_does_not_answer_is_a_405_problem_with_allow(client: httpx.AsyncClient) -> None:
    response = await client.delete("/api/v1/kit/things")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.headers["content-type"] == PROBLEM_CONTENT_TYPE
    assert response.json()["code"] == "method_not_allowed"


async def test_the_headers_of_an_http_exception_stay_on_its_problem(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/kit/guarded")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="kit"'
    assert response.headers["content-type"] == PROBLEM_CONTENT_TYPE
    assert response.json()["detail"] == "Send an API key."
