"""POST /api/v1/research/experts/{expert_type}/bulk through the real app: one item per symbol, in the order asked,
each what the per-symbol endpoint answers (its result, or its problem's status, code and members)."""

from __future__ import annotations

import json

import httpx
from contract_testkit import assert_answered_as_singles
from research_fakes import answering

from research.container import build_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.main import create_app
from research.settings import Settings
from shared_contracts.bulk import MAX_BULK_ITEMS

EXPERT = "technical_analyst"
BULK = f"/api/v1/research/experts/{EXPERT}/bulk"
SINGLE = f"/api/v1/research/experts/{EXPERT}"
ON = "2025-06-30"


async def test_items_come_back_in_the_order_asked_each_as_the_single_endpoint_answers(
    client: httpx.AsyncClient,
) -> None:
    symbols = ["600519.SH", "999999.SH", "000001.SZ"]
    response = await client.post(BULK, json={"symbols": symbols, "analysis_date": ON})
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    assert [item["symbol"] for item in items] == symbols
    singles = [await client.post(SINGLE, json={"symbol": symbol, "analysis_date": ON}) for symbol in symbols]
    assert_answered_as_singles(items, singles)
    assert [(i["problem"] or {}).get("code") for i in items] == [None, "symbol_not_found", None]
    assert items[0]["result"]["usage"]["llm_calls"] == 0


async def test_a_malformed_symbol_is_a_400_for_the_whole_call_naming_its_place(client: httpx.AsyncClient) -> None:
    response = await client.post(BULK, json={"symbols": ["600519.SH", "not a symbol!"], "analysis_date": ON})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_symbol"
    assert response.json()["detail"].startswith("items[1]: ")


async def test_too_little_history_is_the_items_422_with_its_earliest_usable_date(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/research/experts/macro_intelligence/bulk",
        json={"symbols": ["600519.SH"], "analysis_date": "2005-01-04"},
    )
    assert response.status_code == 200, response.text
    [item] = response.json()["items"]
    problem = item["problem"]
    assert (problem["status"], problem["code"]) == (422, "insufficient_history")
    assert problem["earliest_usable_date"]
    assert problem["usage"]["llm_calls"] == 0


async def test_an_unknown_expert_is_a_404_for_the_whole_call(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/research/experts/astrologer/bulk", json={"symbols": ["600519.SH"]})
    assert response.status_code == 404
    assert response.json()["code"] == "expert_not_found"


async def test_bad_options_are_a_400_for_the_whole_call(client: httpx.AsyncClient) -> None:
    body = {"symbols": ["600519.SH"], "options": {"limit": 0}}
    response = await client.post("/api/v1/research/experts/financial_auditor/bulk", json=body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_options"


async def test_no_symbols_or_more_than_the_limit_is_a_400(client: httpx.AsyncClient) -> None:
    for symbols in ([], ["600519.SH"] * (MAX_BULK_ITEMS + 1)):
        response = await client.post(BULK, json={"symbols": symbols})
        assert response.status_code == 400, len(symbols)
        assert response.json()["code"] == "invalid_request"


async def test_in_llm_mode_each_item_carries_its_own_usage_and_budget(snapshot: OfflineSnapshotProvider) -> None:
    answer = {"signal": "BULLISH", "confidence": 0.7, "summary_reasoning": "趋势向上", "risk_warning": "波动"}
    endpoint = answering(json.dumps(answer, ensure_ascii=False))
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, analysis_engine="llm", llm_base_url="http://llm.test/v1", llm_model="m", log_json=False
    )
    container = build_container(settings, provider=snapshot, chat=endpoint.chat())
    app = create_app(settings, container=container)
    symbols = ["600519.SH", "000001.SZ", "999999.SH"]
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        spent = await http.post(BULK, json={"symbols": symbols, "analysis_date": ON})
        broke = await http.post(BULK, json={"symbols": symbols[:2], "analysis_date": ON, "token_budget": 0})
    await container.aclose()
    items = spent.json()["items"]
    assert [i["result"]["usage"]["llm_calls"] for i in items[:2]] == [1, 1]
    assert items[2]["problem"]["code"] == "symbol_not_found"
    assert len(endpoint.requests) == 2
    for item in broke.json()["items"]:
        assert (item["problem"]["status"], item["problem"]["code"]) == (422, "token_budget_exhausted")
        assert item["problem"]["usage"]["llm_calls"] == 0
