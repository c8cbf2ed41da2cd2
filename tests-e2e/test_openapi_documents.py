"""The API documents of the four services, built as they are served (in process): every error answer is a
problem detail (``application/problem+json``), the edge's answers are listed on every ``/api/`` operation, the
``Allow`` a 405 documents is the one it sends, and ``/docs`` loads nothing from another host."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import coordinator.main
import debate.main
import judge.main
import research.main
from coordinator.settings import Settings as CoordinatorSettings
from debate.settings import Settings as DebateSettings
from judge.settings import Settings as JudgeSettings
from research.settings import Settings as ResearchSettings

PROBLEM = "application/problem+json"
PROBLEM_REF = "#/components/schemas/ProblemDetail"
RULES = {"analysis_engine": "rules", "log_json": False}
PEERS = {
    "research_service_url": "http://research.test",
    "debate_service_url": "http://debate.test",
    "judge_service_url": "http://judge.test",
    "log_json": False,
}
APPS: dict[str, Callable[[], FastAPI]] = {
    "coordinator": lambda: coordinator.main.create_app(CoordinatorSettings.model_validate(PEERS)),
    "research": lambda: research.main.create_app(ResearchSettings.model_validate(RULES)),
    "debate": lambda: debate.main.create_app(DebateSettings.model_validate(RULES)),
    "judge": lambda: judge.main.create_app(JudgeSettings.model_validate(RULES)),
}
UNUSED_METHODS = ("DELETE", "PATCH", "PUT", "POST")
"""A 405 is asked for with the first of these the path does not serve."""


@pytest.fixture(params=sorted(APPS))
def app(request: pytest.FixtureRequest) -> FastAPI:
    return APPS[request.param]()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        yield c


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]


def refs_problem(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    """The schema is ProblemDetail, a problem extending it, or admits either."""
    if schema.get("$ref") == PROBLEM_REF:
        return True
    if "$ref" in schema:
        target = components[schema["$ref"].rsplit("/", 1)[-1]]
        return {"title", "status", "detail", "code"} <= set(target.get("properties", {}))
    return any(refs_problem(part, components) for part in schema.get("anyOf", []) + schema.get("allOf", []))


def test_every_api_operation_documents_the_edge_answers_as_problems(app: FastAPI) -> None:
    schema = app.openapi()
    components = schema["components"]["schemas"]
    api = [(path, method, op) for path, method, op in operations(schema) if path.startswith("/api/")]
    assert api
    for path, method, operation in api:
        responses = operation["responses"]
        expected = {"405", "429", "500", "503"}
        if "requestBody" in operation:
            expected |= {"400", "408", "413", "415"}
        if operation.get("parameters"):
            expected |= {"400"}
        assert expected <= set(responses), (path, method, expected - set(responses))
        assert "Allow" in responses["405"]["headers"], (path, method)
        assert "Retry-After" in responses["429"]["headers"], (path, method)
        for status, response in responses.items():
            if int(status) >= 400:
                assert list(response["content"]) == [PROBLEM], (path, method, status)
                assert refs_problem(response["content"][PROBLEM]["schema"], components), (path, method, status)


def test_no_error_answer_is_documented_as_plain_json_but_readiness(app: FastAPI) -> None:
    plain = {
        (path, status)
        for path, _method, operation in operations(app.openapi())
        for status, response in operation["responses"].items()
        if int(status) >= 400 and "application/json" in response.get("content", {})
    }
    assert plain == {("/readyz", "503")}


async def test_a_405_sends_the_allow_its_document_describes(app: FastAPI, client: httpx.AsyncClient) -> None:
    schema = app.openapi()
    for path, _method, operation in operations(schema):
        if not path.startswith("/api/"):
            continue
        url = re.sub(r"\{[^}]+\}", "x", path)
        unused = next(m for m in UNUSED_METHODS if m.lower() not in schema["paths"][path])
        response = await client.request(unused, url)
        assert response.status_code == 405, (path, response.text)
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["code"] == "method_not_allowed"
        documented = operation["responses"]["405"]["headers"]["Allow"]["example"]
        assert set(response.headers["allow"].split(", ")) == set(documented.split(", ")), path


async def test_the_judge_answers_delete_on_its_verdict_with_405_allow_post() -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=APPS["judge"]()), base_url="http://t") as c:
        response = await c.delete("/api/v1/judge/verdict")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["code"] == "method_not_allowed"


async def test_docs_load_every_asset_from_the_service(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text.lower()
    assets = re.findall(r'(?:href|src)="([^"]+)"', page.text)
    assert len(assets) == 3
    for asset in assets:
        assert asset.startswith("/docs/assets/"), asset
        response = await client.get(asset)
        assert response.status_code == 200, asset
        kind = {"js": "text/javascript", "css": "text/css", "png": "image/png"}[asset.rsplit(".", 1)[1]]
        assert response.headers["content-type"].startswith(kind), asset
