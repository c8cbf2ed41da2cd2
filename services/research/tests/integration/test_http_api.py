"""The HTTP edge through the real app (lifespan entered, ASGI transport): routes, status codes, problem details."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.main import create_app
from research.settings import Settings
from shared_contracts.research import ExpertCatalog, TechnicalAnalystResult


def rules_settings(**overrides: Any) -> Settings:
    return Settings(_env_file=None, analysis_engine="rules", log_json=False, **overrides)  # type: ignore[call-arg]


async def test_catalogue_lists_five_experts_with_options(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/research/experts")
    assert response.status_code == 200
    catalog = ExpertCatalog.model_validate(response.json())
    assert [e.name for e in catalog.experts] == [
        "technical_analyst",
        "financial_auditor",
        "valuation_modeler",
        "macro_intelligence",
        "catalyst_detective",
    ]
    financial = next(e for e in catalog.experts if e.name == "financial_auditor")
    assert [(o.name, o.type, o.default, o.minimum, o.maximum) for o in financial.options] == [
        ("limit", "integer", 5, 1, 20)
    ]
    [limit] = next(e for e in response.json()["experts"] if e["name"] == "financial_auditor")["options"]
    assert (limit["minimum"], limit["maximum"]) == (1, 20)
    assert isinstance(limit["minimum"], int)  # an integer option's bounds are integers: 1, not 1.0
    technical = next(e for e in catalog.experts if e.name == "technical_analyst")
    assert [(o.name, o.type, o.default) for o in technical.options] == [("analysis_date", "string (date) | null", None)]
    assert catalog.engine.kind == "rules"
    assert catalog.data_provider == "offline-snapshot"


async def test_run_technical_analyst(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/research/experts/technical_analyst",
        json={"symbol": "600519.SH", "options": {"analysis_date": "2025-09-28"}},
    )
    assert response.status_code == 200, response.text
    result = TechnicalAnalystResult.model_validate(response.json())
    assert result.as_of == "2025-09-26"


async def test_run_catalyst_detective_nests_result(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/research/experts/catalyst_detective", json={"symbol": "300750.SZ"})
    assert response.status_code == 200
    body = response.json()
    assert set(body["result"]) == {
        "catalyst_assessment",
        "confidence_score",
        "catalyst_summary",
        "positive_catalysts",
        "negative_catalysts",
    }
    assert {"raw_llm_output", "user_prompt", "catalyst_context"} <= set(body)


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("technical_analyst", {"symbol": "not a symbol!"}, 400, "invalid_symbol"),
        ("technical_analyst", {"symbol": ""}, 400, "symbol_required"),
        ("technical_analyst", {"symbol": "  "}, 400, "symbol_required"),
        (
            "technical_analyst",
            {"symbol": "600519.SH", "options": {"analysis_date": "yesterday"}},
            400,
            "invalid_options",
        ),
        (
            "technical_analyst",
            {"symbol": "600519.SH", "options": {"analysis_date": 1759190400}},
            400,
            "invalid_options",
        ),
        (
            "technical_analyst",
            {"symbol": "600519.SH", "options": {"analysis_date": "20250930"}},
            400,
            "invalid_options",
        ),
        ("technical_analyst", {"symbol": "600519.SH", "options": {"window": 5}}, 400, "invalid_options"),
        ("financial_auditor", {"symbol": "600519.SH", "options": {"limit": 0}}, 400, "invalid_options"),
        ("financial_auditor", {"symbol": "600519.SH", "options": {"limit": "5"}}, 400, "invalid_options"),
        ("valuation_modeler", {"symbol": "600519.SH", "options": {"anything": 1}}, 400, "invalid_options"),
        ("technical_analyst", {"ticker": "600519.SH"}, 400, "invalid_request"),
        ("astrologer", {"symbol": "600519.SH"}, 404, "expert_not_found"),
        ("technical_analyst", {"symbol": "000002.SZ"}, 404, "symbol_not_found"),
        ("valuation_modeler", {"symbol": "000001.SZ"}, 404, "data_unavailable"),
        ("macro_intelligence", {"symbol": "AAPL"}, 404, "data_unavailable"),
        (
            "technical_analyst",
            {"symbol": "600519.SH", "options": {"analysis_date": "2022-02-01"}},
            422,
            "insufficient_history",
        ),
        (
            "technical_analyst",
            {"symbol": "600519.SH", "analysis_date": "2025-09-30", "options": {"analysis_date": "2025-09-29"}},
            400,
            "conflicting_analysis_date",
        ),
        ("macro_intelligence", {"symbol": "600519.SH", "analysis_date": "2025/09/30"}, 400, "invalid_request"),
        (
            "financial_auditor",
            {"symbol": "600519.SH", "analysis_date": "2015-04-29"},
            422,
            "insufficient_history",
        ),
    ],
)
async def test_client_mistakes_are_4xx_problems(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], status: int, code: str
) -> None:
    response = await client.post(f"/api/v1/research/experts/{path}", json=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == code
    assert problem["status"] == status
    assert problem["detail"]


async def test_invalid_input_is_echoed_at_most_200_characters(client: httpx.AsyncClient) -> None:
    huge = "A" * 900_000
    symbol = await client.post("/api/v1/research/experts/technical_analyst", json={"symbol": huge})
    spaced = await client.post("/api/v1/research/experts/technical_analyst", json={"symbol": "A " * 450_000})
    option = await client.post(
        "/api/v1/research/experts/technical_analyst", json={"symbol": "600519.SH", "options": {huge: 1}}
    )
    for response in (symbol, spaced, option):
        assert response.status_code == 400, response.text[:300]
        assert len(response.content) < 1_500
        assert "A" * 201 not in response.text


async def test_unknown_symbol_lists_the_offline_symbols(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/research/experts/technical_analyst", json={"symbol": "0700.HK"})
    assert response.status_code == 404
    body = response.json()
    assert len(body["available_symbols"]) == 121
    assert {"600519.SH", "AAPL", "603993.SH"} <= set(body["available_symbols"])
    assert "GET /api/v1/research/universe" in body["detail"]


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/research/experts/technical_analyst",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"


async def test_health_readiness_metrics(client: httpx.AsyncClient) -> None:
    openapi = await client.get("/openapi.json")
    assert "/api/v1/research/experts/{expert_type}" in openapi.json()["paths"]
    assert (await client.get("/healthz")).json()["status"] == "ok"
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["market_data"] == "ok"
    await client.post("/api/v1/research/experts/macro_intelligence", json={"symbol": "600519.SH"})
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200
    assert 'handler="/api/v1/research/experts/{expert_type}"' in metrics.text


async def test_lifespan_builds_the_container_from_settings_once() -> None:
    app = create_app(rules_settings())
    async with app.router.lifespan_context(app):
        container = app.state.container
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            for _ in range(2):
                response = await http.post("/api/v1/research/experts/technical_analyst", json={"symbol": "AAPL"})
                assert response.status_code == 200
        assert app.state.container is container  # loaded at start, reused per request
        assert isinstance(container.provider, OfflineSnapshotProvider)
