"""The research service over an OpenAI-compatible endpoint that echoes the request's key and Authorization
header in what it answers (401, 500, a 200 that is no completion): the key is in no response body (the
problem detail, or the result's ``fallback_reason``) and in no log line, DEBUG ones included."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from contract_testkit import mock_chat

from research.container import build_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.main import create_app
from research.settings import Settings
from service_kit.logging import flush_logs

KEY = "sk-test-SECRET-123456"
URL = "/api/v1/research/experts/technical_analyst"


def echoing(status: int, *, garbage: bool = False) -> Callable[[httpx2.Request], httpx2.Response]:
    def respond(request: httpx2.Request) -> httpx2.Response:
        header = request.headers["authorization"]
        said = f"Incorrect API key provided: {KEY}. You sent Authorization: {header}"
        if garbage:
            return httpx2.Response(status, text=f"<html>{said}</html>")
        return httpx2.Response(status, json={"error": {"message": said, "code": "invalid_api_key"}})

    return respond


@asynccontextmanager
async def research_app(
    snapshot: OfflineSnapshotProvider, respond: Callable[[httpx2.Request], httpx2.Response], **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        analysis_engine="llm",
        llm_base_url="http://llm.test/v1",
        llm_model="test-model",
        log_json=True,
        log_level="DEBUG",
        **overrides,
    )
    container = build_container(settings, provider=snapshot, chat=mock_chat(respond, api_key=KEY, max_retries=0))
    app = create_app(settings, container=container)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client
    await container.aclose()


@pytest.mark.parametrize(
    ("respond", "status", "code"),
    [
        (echoing(401), 502, "llm_upstream_error"),
        (echoing(500), 503, "llm_unavailable"),
        (echoing(200, garbage=True), 502, "llm_upstream_error"),
    ],
    ids=["401", "500", "200-garbage"],
)
async def test_an_llm_echoing_its_key_leaks_it_into_no_problem_and_no_log(
    snapshot: OfflineSnapshotProvider,
    respond: Callable[[httpx2.Request], httpx2.Response],
    status: int,
    code: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with research_app(snapshot, respond) as client:
        response = await client.post(URL, json={"symbol": "600519.SH"})
    flush_logs()
    logged = capsys.readouterr().err

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["detail"].startswith("the LLM endpoint")
    for where, text in {"problem": response.text, "logs": logged}.items():
        assert KEY not in text, where
        assert "SECRET" not in text, where
    assert any(json.loads(line)["event"] == "request_failed" for line in logged.splitlines() if line[:1] == "{")


async def test_a_fallback_to_rules_states_the_failure_without_the_key(
    snapshot: OfflineSnapshotProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    async with research_app(snapshot, echoing(401), llm_fallback_to_rules=True) as client:
        response = await client.post(URL, json={"symbol": "600519.SH"})
    flush_logs()
    logged = capsys.readouterr().err

    assert response.status_code == 200, response.text
    reason = response.json()["engine"]["fallback_reason"]
    assert reason == "llm_upstream_error: the LLM endpoint refused the call: it answered 401 (AuthenticationError)"
    assert KEY not in response.text
    assert KEY not in logged
