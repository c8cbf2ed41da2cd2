"""POST /api/v1/debate/run/bulk through the real app: one item per debate, in the order asked, each what
POST /api/v1/debate/run answers (its outcome, or its problem's status, code and members)."""

from __future__ import annotations

from typing import Any

from contract_testkit import assert_answered_as_singles, mock_llm_http_client
from debate_fakes import raw_research_results
from debate_http import RecordingLLMServer, debate_client, llm_settings

from debate.container import build_container
from shared_contracts.bulk import MAX_BULK_ITEMS

BULK = "/api/v1/debate/run/bulk"
SINGLE = "/api/v1/debate/run"


def _items() -> list[dict[str, Any]]:
    results = raw_research_results()
    return [
        {"symbol": "600519.SH", "expert_results": results},
        {"symbol": "", "expert_results": results},
        {"symbol": "000001.SZ", "expert_results": results},
        {"symbol": "600519.SH", "expert_results": {"technical_analyst": {"status": "failed", "error": "x"}}},
    ]


async def test_items_come_back_in_the_order_asked_each_as_the_single_endpoint_answers() -> None:
    summary = {"signal": "BEARISH", "confidence": 0.6, "reasoning": "跌破均线", "risk_warning": "波动"}
    items = [_items()[0], {"symbol": "000001.SZ", "expert_results": {"technical_analyst": summary}}]
    async with debate_client() as (client, _):
        response = await client.post(BULK, json={"items": items})
        singles = [await client.post(SINGLE, json=item) for item in items]
    assert response.status_code == 200, response.text
    answered = response.json()["items"]
    assert [a["symbol"] for a in answered] == [i["symbol"] for i in items]
    assert_answered_as_singles(answered, singles)
    assert [a["problem"] for a in answered] == [None, None]


async def test_a_malformed_item_is_a_400_for_the_whole_call_naming_its_place() -> None:
    items = _items()
    async with debate_client() as (client, _):
        response = await client.post(BULK, json={"items": items})
        singles = [await client.post(SINGLE, json=item) for item in items]
    assert response.status_code == 400
    assert response.json()["code"] == singles[1].json()["code"] == "symbol_required"
    assert response.json()["detail"].startswith("items[1]: ")
    assert [s.status_code for s in singles] == [200, 400, 400, 400]


async def test_no_items_or_more_than_the_limit_is_a_400() -> None:
    item = {"symbol": "600519.SH", "expert_results": {"technical_analyst": {"signal": "BULLISH", "confidence": 0.5}}}
    async with debate_client() as (client, _):
        for items in ([], [item] * (MAX_BULK_ITEMS + 1)):
            response = await client.post(BULK, json={"items": items})
            assert response.status_code == 400, len(items)
            assert response.json()["code"] == "invalid_request"


async def test_in_llm_mode_each_item_carries_its_own_usage() -> None:
    container = build_container(llm_settings(), llm_http_client=mock_llm_http_client(RecordingLLMServer()))
    items = [{"symbol": "600519.SH", "expert_results": raw_research_results()}] * 2
    try:
        async with debate_client(container=container) as (client, _):
            response = await client.post(BULK, json={"items": items})
            broke = await client.post(BULK, json={"items": items[:1], "token_budget": 0})
    finally:
        await container.aclose()
    assert response.status_code == 200, response.text
    assert [a["result"]["usage"]["llm_calls"] for a in response.json()["items"]] == [3, 3]
    [problem] = [a["problem"] for a in broke.json()["items"]]
    assert (problem["status"], problem["code"]) == (422, "token_budget_exhausted")
