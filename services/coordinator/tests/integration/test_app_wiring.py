"""The app as deployed: the container's real HTTP adapters against mocked peers (respx), request-id
forwarding, /healthz, /readyz, /metrics, configuration."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import InMemorySessionRepository, debate_outcome, make_settings, sample_result, serve, verdict

from coordinator.api.routes import ROUTERS
from coordinator.container import build_container
from coordinator.settings import Settings
from service_kit.logging import flush_logs
from service_kit.settings import ConfigurationError, load_settings

RESEARCH, DEBATE, JUDGE = "http://research.test", "http://debate.test", "http://judge.test"


@contextlib.contextmanager
def peers_mocked(**kwargs: Any) -> Iterator[respx.MockRouter]:
    """respx at the httpx client level: the container's client runs on the aiohttp transport, which
    respx's default (httpcore) mocker does not see. The test's own ASGI client (``http://t``) passes."""
    with respx.mock(using="httpx", **kwargs) as router:
        router.route(host="t").pass_through()
        yield router


def mock_peers(router: respx.MockRouter) -> dict[str, respx.Route]:
    routes = {
        e: router.post(f"{RESEARCH}/api/v1/research/experts/{e}").mock(
            return_value=httpx.Response(200, json=sample_result(e))
        )
        for e in ("technical_analyst", "macro_intelligence")
    }
    routes["debate"] = router.post(f"{DEBATE}/api/v1/debate/run").mock(
        return_value=httpx.Response(200, json=debate_outcome())
    )
    routes["judge"] = router.post(f"{JUDGE}/api/v1/judge/verdict").mock(
        return_value=httpx.Response(200, json=verdict())
    )
    return routes


def test_routes_file_registers_the_coordinator_router() -> None:
    paths = {route.path for router in ROUTERS for route in router.routes}  # type: ignore[attr-defined]
    assert "/api/v1/coordinator/research" in paths


async def test_a_research_flows_through_research_debate_and_judge_over_http(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with peers_mocked(assert_all_called=True) as router:
        routes = mock_peers(router)
        async with serve() as client:
            response = await client.post(
                "/api/v1/coordinator/research",
                json={
                    "symbol": "600519.SH",
                    "experts": ["technical_analyst", "macro_intelligence"],
                    "analysis_date": "2026-02-13",
                },
                headers={"X-Request-ID": "req-42"},
            )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["overall_status"] == "completed"
    assert body["verdict"]["action"] == "BUY"
    assert response.headers["X-Request-ID"] == "req-42"
    for name, route in routes.items():
        assert route.calls.last.request.headers["X-Request-ID"] == "req-42", name
    judge_body = json.loads(routes["judge"].calls.last.request.content)
    assert judge_body["reference_price"] == 1580.5  # from the technical analyst's result
    flush_logs()
    stage_lines = [
        json.loads(line)
        for line in capsys.readouterr().err.splitlines()
        if any(f'"event": "{e}"' in line for e in ("expert_done", "experts_gathered", "debate_done", "verdict_done"))
    ]
    assert len(stage_lines) == 5
    assert {line["request_id"] for line in stage_lines} == {"req-42"}


async def test_a_generated_request_id_is_forwarded_too() -> None:
    with peers_mocked(assert_all_called=False) as router:
        routes = mock_peers(router)
        async with serve() as client:
            response = await client.post(
                "/api/v1/coordinator/research",
                json={"symbol": "600519.SH", "experts": ["technical_analyst"], "skip_debate": True},
            )
    generated = response.headers["X-Request-ID"]
    assert generated
    assert routes["technical_analyst"].calls.last.request.headers["X-Request-ID"] == generated


async def test_healthz_and_metrics() -> None:
    async with serve() as client:
        health = await client.get("/healthz")
        metrics = await client.get("/metrics")
    assert health.status_code == 200
    assert health.json()["service"] == "coordinator"
    assert metrics.status_code == 200


async def test_readyz_is_ready_when_the_three_peers_answer() -> None:
    with peers_mocked() as router:
        for base in (RESEARCH, DEBATE, JUDGE):
            router.get(f"{base}/healthz").mock(return_value=httpx.Response(200, json={"status": "ok"}))
        async with serve() as client:
            response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"research": "ok", "debate": "ok", "judge": "ok", "database": "ok"}


async def test_readyz_is_503_naming_the_peer_that_is_down() -> None:
    with peers_mocked() as router:
        router.get(f"{RESEARCH}/healthz").mock(return_value=httpx.Response(200))
        router.get(f"{DEBATE}/healthz").mock(side_effect=httpx.ConnectError("connection refused"))
        router.get(f"{JUDGE}/healthz").mock(return_value=httpx.Response(503))
        async with serve() as client:
            response = await client.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["research"] == "ok"
    assert checks["debate"].startswith("unreachable")
    assert checks["judge"] == "unhealthy: HTTP 503"


async def test_readyz_checks_the_session_store() -> None:
    container = build_container(make_settings(), sessions=InMemorySessionRepository(fail_on="ping"))
    with peers_mocked() as router:
        for base in (RESEARCH, DEBATE, JUDGE):
            router.get(f"{base}/healthz").mock(return_value=httpx.Response(200))
        async with serve(container) as client:
            response = await client.get("/readyz")
    await container.aclose()
    assert response.status_code == 503
    assert response.json()["checks"]["database"].startswith("unusable: RuntimeError")


async def test_readyz_checks_the_store_beside_the_peers_not_after_them() -> None:
    """Each check has the whole readiness timeout; run one after the other, /readyz took twice as long."""
    pinged = asyncio.Event()

    class PingNotedStore(InMemorySessionRepository):
        async def ping(self) -> None:
            pinged.set()

    async def healthy_once_the_store_is_pinged(request: httpx.Request) -> httpx.Response:
        try:
            await asyncio.wait_for(pinged.wait(), 1.0)
        except TimeoutError:
            return httpx.Response(503)
        return httpx.Response(200)

    container = build_container(make_settings(readiness_timeout_seconds=1.0), sessions=PingNotedStore())
    with peers_mocked() as router:
        for base in (RESEARCH, DEBATE, JUDGE):
            router.get(f"{base}/healthz").mock(side_effect=healthy_once_the_store_is_pinged)
        async with serve(container) as client:
            response = await client.get("/readyz")
    await container.aclose()
    assert response.json()["checks"] == {"research": "ok", "debate": "ok", "judge": "ok", "database": "ok"}


def test_settings_defaults() -> None:
    settings = Settings()
    assert settings.research_service_url == "http://127.0.0.1:8001"
    assert settings.debate_service_url == "http://127.0.0.1:8002"
    assert settings.judge_service_url == "http://127.0.0.1:8003"
    assert settings.database_url == "sqlite+aiosqlite:///./data/coordinator.db"
    assert settings.http_max_attempts == 3


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RESEARCH_SERVICE_URL", "research:8001"),
        ("EXPERT_TIMEOUT_SECONDS", "0"),
        ("JUDGE_TIMEOUT_SECONDS", "soon"),
        ("HTTP_MAX_ATTEMPTS", "7"),
        ("DATABASE_URL", "coordinator.db"),
        ("DATABASE_URL", "mysql+aiomysql://u@h/db"),
        ("DATABASE_URL", "postgresql+psycopg2://u@h/db"),
        ("SESSION_LEASE_SECONDS", "inf"),
        ("SESSION_LEASE_SECONDS", "1e308"),
        ("SESSION_LEASE_SECONDS", "nan"),
    ],
)
def test_bad_configuration_fails_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError, match=variable):
        load_settings(Settings)


def test_create_app_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from coordinator.main import create_app

    monkeypatch.setenv("DEBATE_SERVICE_URL", "nope")
    with pytest.raises(SystemExit, match="DEBATE_SERVICE_URL"):
        create_app()
