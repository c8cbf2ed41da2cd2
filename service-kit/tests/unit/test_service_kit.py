"""The FastAPI edge kit: problem details, request ids, health/readiness/metrics."""

from __future__ import annotations

import gc
import json
from collections.abc import AsyncIterator
from contextlib import aclosing

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel

from service_kit.app_factory import container_lifespan, container_readiness, create_service_app
from service_kit.heap import YOUNG_GENERATION_THRESHOLD
from service_kit.logging import flush_logs
from service_kit.request_id import REQUEST_ID_HEADER, current_request_id
from service_kit.settings import ConfigurationError, ServiceSettings, load_settings
from shared_contracts.errors import ServiceError


class ThingNotFound(ServiceError):
    code = "not_found"


CREATED: list[int] = []


class Payload(BaseModel):
    n: int


def build_app(ready: bool = True, max_body_bytes: int = 1_048_576, **settings: object) -> FastAPI:
    router = APIRouter()

    @router.post("/things")
    async def create(payload: Payload) -> dict[str, int | str | None]:
        CREATED.append(payload.n)
        return {"n": payload.n, "request_id": current_request_id()}

    @router.post("/things/bulk")
    async def create_many(payload: Payload) -> dict[str, int]:
        return {"n": payload.n}

    @router.get("/things/{name}")
    async def get(name: str) -> dict[str, str]:
        if name == "boom":
            raise RuntimeError("bug")
        raise ThingNotFound(f"no thing called {name}")

    async def readiness(_app: FastAPI) -> dict[str, str]:
        return {"database": "ok" if ready else "connection refused"}

    return create_service_app(
        service="kit-test",
        title="t",
        description="d",
        settings=ServiceSettings(log_json=True, max_request_body_bytes=max_body_bytes, **settings),  # type: ignore[arg-type]
        routers=[router],
        readiness=readiness,
    )


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=build_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        yield c


async def test_validation_error_is_400_problem(client: httpx.AsyncClient) -> None:
    response = await client.post("/things", json={"n": "many"})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "invalid_request"
    assert body["status"] == 400
    assert "n" in body["detail"]


async def test_body_that_is_not_json_is_malformed_json(client: httpx.AsyncClient) -> None:
    response = await client.post("/things", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain"])
async def test_a_json_body_sent_as_another_media_type_is_415_saying_what_to_send(
    client: httpx.AsyncClient, content_type: str
) -> None:
    """curl -d '{...}' without -H sends form-urlencoded: the body is never read as JSON."""
    response = await client.post("/things", content=b'{"n": 1}', headers={"content-type": content_type})
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"
    assert f"Content-Type: application/json (it was sent as {content_type})" in response.json()["detail"]


async def test_a_body_without_a_content_type_is_415_too(client: httpx.AsyncClient) -> None:
    response = await client.post("/things", content=b'{"n": 1}')
    assert response.status_code == 415
    assert "(it was sent without one)" in response.json()["detail"]


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/merge-patch+json"])
async def test_a_json_body_with_a_json_content_type_is_read(client: httpx.AsyncClient, content_type: str) -> None:
    response = await client.post("/things", content=b'{"n": 1}', headers={"content-type": content_type})
    assert response.status_code == 200, response.text


async def test_mapped_domain_exception(client: httpx.AsyncClient) -> None:
    response = await client.get("/things/widget")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert response.json()["detail"] == "no thing called widget"


async def test_unexpected_error_is_500_without_internals(capsys: pytest.CaptureFixture[str]) -> None:
    # raise_app_exceptions stays on: an exception that went on to the server would fail this test.
    transport = httpx.ASGITransport(app=build_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.get("/things/boom", headers={REQUEST_ID_HEADER: "rid-500"})
        after = await client.post("/things", json={"n": 1})
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "internal_error"
    assert "bug" not in response.text
    assert response.json()["request_id"] == "rid-500"
    assert response.headers[REQUEST_ID_HEADER] == "rid-500"
    assert after.status_code == 200
    flush_logs()
    logged = [line for line in capsys.readouterr().err.splitlines() if "unhandled_error" in line]
    assert len(logged) == 1
    assert '"request_id": "rid-500"' in logged[0]
    assert "RuntimeError" in logged[0]


async def test_unexpected_error_is_counted_as_a_500_in_metrics() -> None:
    transport = httpx.ASGITransport(app=build_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        await client.get("/things/boom")
        metrics = (await client.get("/metrics")).text
    assert any('status="5xx"' in line and "/things/{name}" in line for line in metrics.splitlines())


@pytest.mark.parametrize(
    "body",
    [b'{"n": "\xff"}', b"[" * 100_000],
    ids=["invalid-utf8", "nested-too-deep"],
)
async def test_body_the_json_decoder_raises_on_is_malformed_json(client: httpx.AsyncClient, body: bytes) -> None:
    response = await client.post("/things", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "malformed_json"


def _padded_body(size: int) -> bytes:
    body = b'{"n": 7}'
    return body + b" " * (size - len(body))


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), 100):
        yield body[start : start + 100]


async def test_a_body_larger_than_the_cap_is_413_before_the_application_sees_it() -> None:
    CREATED.clear()
    transport = httpx.ASGITransport(app=build_app(max_body_bytes=1000))
    json_headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=json_headers) as c:
        announced = await c.post("/things", content=_padded_body(1001), headers={REQUEST_ID_HEADER: "big-1"})
        chunked = await c.post("/things", content=_chunks(_padded_body(1001)))
        at_the_cap = await c.post("/things", content=_padded_body(1000))
        chunked_under = await c.post("/things", content=_chunks(_padded_body(999)))

    assert announced.status_code == 413
    assert announced.headers["content-type"] == "application/problem+json"
    problem = announced.json()
    assert problem["code"] == "request_too_large"
    assert problem["request_id"] == "big-1" == announced.headers[REQUEST_ID_HEADER]
    assert problem["detail"] == "The request body (1001 bytes) is larger than this service accepts (1000 bytes)."
    assert chunked.request.headers["transfer-encoding"] == "chunked"
    assert chunked.status_code == 413
    assert chunked.json()["detail"].startswith("The request body (more than 1000 bytes)")
    assert at_the_cap.status_code == chunked_under.status_code == 200
    assert chunked_under.json()["n"] == 7
    assert CREATED == [7, 7]


async def test_a_bulk_route_has_its_own_cap() -> None:
    app = build_app(max_body_bytes=1000, max_bulk_request_body_bytes=2000)
    json_headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t", headers=json_headers
    ) as c:
        bulk = await c.post("/things/bulk", content=_padded_body(2000))
        too_big = await c.post("/things/bulk", content=_chunks(_padded_body(2001)))
        single = await c.post("/things", content=_padded_body(1001))
    assert bulk.status_code == 200
    assert too_big.status_code == single.status_code == 413
    assert too_big.json()["detail"].startswith("The request body (more than 2000 bytes)")


def test_the_body_cap_is_configurable_and_positive(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ServiceSettings().max_request_body_bytes == 1_048_576
    monkeypatch.setenv("MAX_REQUEST_BODY_BYTES", "2048")
    assert load_settings(ServiceSettings).max_request_body_bytes == 2048
    monkeypatch.setenv("MAX_REQUEST_BODY_BYTES", "0")
    with pytest.raises(ConfigurationError, match="MAX_REQUEST_BODY_BYTES"):
        load_settings(ServiceSettings)


def test_extra_members_cannot_replace_standard_ones() -> None:
    from service_kit.problems import problem_response

    response = problem_response(409, "conflict", "d", extra={"errors": "x", "status": 200, "retry_session_id": "s2"})
    body = json.loads(response.body)
    assert body["status"] == 409
    assert "errors" not in body
    assert body["retry_session_id"] == "s2"


async def test_unknown_route_is_a_problem(client: httpx.AsyncClient) -> None:
    response = await client.get("/nowhere")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


async def test_request_id_is_accepted_echoed_and_visible(client: httpx.AsyncClient) -> None:
    response = await client.post("/things", json={"n": 1}, headers={REQUEST_ID_HEADER: "abc-123"})
    assert response.headers[REQUEST_ID_HEADER] == "abc-123"
    assert response.json()["request_id"] == "abc-123"


async def test_request_id_is_generated_when_missing_or_unsafe(client: httpx.AsyncClient) -> None:
    generated = await client.post("/things", json={"n": 1})
    unsafe = await client.post("/things", json={"n": 1}, headers={REQUEST_ID_HEADER: "a b\tc"})
    for response in (generated, unsafe):
        rid = response.headers[REQUEST_ID_HEADER]
        assert len(rid) == 32
        assert response.json()["request_id"] == rid


async def test_problem_carries_request_id(client: httpx.AsyncClient) -> None:
    response = await client.get("/things/widget", headers={REQUEST_ID_HEADER: "rid-9"})
    assert response.json()["request_id"] == "rid-9"


async def test_health_ready_and_metrics(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok", "service": "kit-test"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"database": "ok"}
    await client.post("/things", json={"n": 1})
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200
    assert "http_requests_total" in metrics.text


async def test_not_ready_is_503() -> None:
    transport = httpx.ASGITransport(app=build_app(ready=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        response = await c.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == "connection refused"


async def test_why_a_dependency_is_not_ready_is_told_only_to_an_admin_or_service_key() -> None:
    from service_kit.api_keys import hash_key

    keys = f"alice={hash_key('sr_alice')},ops={hash_key('sr_ops')}:admin,coord={hash_key('sr_coord')}:service"
    app = build_app(ready=False, auth_mode="api_key", api_keys=keys)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        anonymous = await c.get("/readyz")
        client = await c.get("/readyz", headers={"Authorization": "Bearer sr_alice"})
        admin = await c.get("/readyz", headers={"Authorization": "Bearer sr_ops"})
        service = await c.get("/readyz", headers={"Authorization": "Bearer sr_coord"})
    for answer in (anonymous, client):
        assert (answer.status_code, answer.json()["checks"]) == (503, {"database": "unavailable"})
    for answer in (admin, service):
        assert (answer.status_code, answer.json()["checks"]) == (503, {"database": "connection refused"})


async def test_each_app_counts_its_own_requests() -> None:
    apps = [build_app(), build_app()]
    for app in apps:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            await c.post("/things", json={"n": 1})
            metrics = await c.get("/metrics")
        assert 'handler="/things"' in metrics.text


class RecordingContainer:
    def __init__(self, events: list[str], name: str = "built") -> None:
        self.events = events
        self.name = name

    async def aclose(self) -> None:
        self.events.append(f"close {self.name}")

    async def readiness(self) -> dict[str, str]:
        return {"store": "ok" if self.name == "built" else "down"}


async def test_container_lifespan_opens_and_closes_what_it_builds() -> None:
    events: list[str] = []
    lifespan = container_lifespan(None, lambda: aclosing(RecordingContainer(events)))
    app = FastAPI()
    async with lifespan(app):
        assert app.state.container.name == "built"
        events.append("serving")
    assert events == ["serving", "close built"]


async def test_while_the_app_serves_the_start_up_heap_is_frozen_and_given_back_at_shutdown() -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    kept = object.__new__(RecordingContainer)  # tracked by the collector before start-up ends
    app = FastAPI()
    async with container_lifespan(None, lambda: aclosing(RecordingContainer([])))(app):
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # frozen: no collection walks it
        assert gc.get_threshold() == (YOUNG_GENERATION_THRESHOLD, *before[0][1:])
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    assert gc.is_tracked(kept)


async def test_container_lifespan_leaves_a_given_container_open() -> None:
    events: list[str] = []
    given = RecordingContainer(events, "given")
    app = FastAPI()
    async with container_lifespan(given, lambda: aclosing(RecordingContainer(events)))(app):
        assert app.state.container is given
    assert events == []


async def test_container_readiness_asks_the_container_or_says_it_is_not_built() -> None:
    readiness = container_readiness(RecordingContainer.readiness, not_built={"store": "not started"})
    app = FastAPI()
    assert await readiness(app) == {"store": "not started"}
    app.state.container = RecordingContainer([])
    assert await readiness(app) == {"store": "ok"}


def test_the_openapi_document_lists_400_problems_not_422() -> None:
    schema = build_app().openapi()
    create = schema["paths"]["/things"]["post"]["responses"]
    assert "422" not in json.dumps(schema["paths"])
    assert create["400"]["content"]["application/problem+json"]["schema"] == {
        "$ref": "#/components/schemas/ProblemDetail"
    }
    assert "ProblemDetail" in schema["components"]["schemas"]
    assert "HTTPValidationError" not in schema["components"]["schemas"]
