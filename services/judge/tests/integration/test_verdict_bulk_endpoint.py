"""POST /api/v1/judge/verdict/bulk through the real app: one item per input, in the order asked, each what
POST /api/v1/judge/verdict answers (its verdict, or its problem's status, code and members)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from contract_testkit import assert_answered_as_singles
from judge_fakes import FakeJudgeAgent, RecordingLLMEndpoint, chat_completion, llm_answer, wire_body

from judge.container import JudgeContainer, build_container
from judge.main import create_app
from judge.settings import Settings
from shared_contracts.bulk import MAX_BULK_ITEMS

BULK = "/api/v1/judge/verdict/bulk"
SINGLE = "/api/v1/judge/verdict"
LLM_ENV = {"analysis_engine": "llm", "llm_base_url": "http://llm.test/v1", "llm_model": "judge-model"}


def _settings(**overrides: Any) -> Settings:
    return Settings(**{"analysis_engine": "rules", "log_json": False, "_env_file": None, **overrides})


async def _post(container: JudgeContainer, *requests: tuple[str, dict[str, Any]]) -> list[httpx.Response]:
    app = create_app(container.settings, container=container)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return [await client.post(url, json=body) for url, body in requests]


async def test_items_come_back_in_the_order_asked_each_as_the_single_endpoint_answers() -> None:
    items = [
        wire_body(reference_price=20.0, atr=0.5),
        wire_body(symbol="000001.SZ", direction="BEARISH", confidence=0.4),
    ]
    bulk, *singles = await _post(
        build_container(_settings()), (BULK, {"items": items}), *((SINGLE, item) for item in items)
    )
    assert bulk.status_code == 200, bulk.text
    answered = bulk.json()["items"]
    assert [a["symbol"] for a in answered] == [i["symbol"] for i in items]
    assert_answered_as_singles(answered, singles)
    assert [a["problem"] for a in answered] == [None, None]


async def test_a_malformed_item_is_a_400_for_the_whole_call_naming_its_place() -> None:
    items = [wire_body(), wire_body(symbol="   "), wire_body(symbol="AAPL; DROP")]
    bulk, *singles = await _post(
        build_container(_settings()), (BULK, {"items": items}), *((SINGLE, item) for item in items)
    )
    assert bulk.status_code == 400
    assert bulk.json()["code"] == "symbol_required"
    assert bulk.json()["detail"].startswith("items[1]: ")
    assert [s.status_code for s in singles] == [200, 400, 400]


async def test_an_unexpected_bug_in_one_item_is_that_items_500() -> None:
    container = build_container(_settings(), agent=FakeJudgeAgent(error=RuntimeError("bug")))
    [bulk] = await _post(container, (BULK, {"items": [wire_body()]}))
    assert bulk.status_code == 200
    [item] = bulk.json()["items"]
    assert (item["problem"]["status"], item["problem"]["code"]) == (500, "internal_error")


async def test_no_items_more_than_the_limit_or_a_malformed_item_is_a_400() -> None:
    bodies = [[], [wire_body()] * (MAX_BULK_ITEMS + 1), [wire_body(confidence=1.5)]]
    answers = await _post(build_container(_settings()), *((BULK, {"items": items}) for items in bodies))
    for answer in answers:
        assert answer.status_code == 400
        assert answer.json()["code"] == "invalid_request"


async def test_in_llm_mode_each_item_carries_its_own_usage() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer(position_percent=10))))
    container = build_container(_settings(**LLM_ENV), llm_http_client=endpoint.client())
    items = [wire_body(reference_price=100.0, atr=2.0), wire_body(symbol="000001.SZ", reference_price=10.0)]
    bulk, broke = await _post(container, (BULK, {"items": items}), (BULK, {"items": items, "token_budget": 0}))
    await container.aclose()
    assert [a["result"]["usage"]["llm_calls"] for a in bulk.json()["items"]] == [1, 1]
    assert len(endpoint.requests) == 2
    for item in broke.json()["items"]:
        assert (item["problem"]["status"], item["problem"]["code"]) == (422, "token_budget_exhausted")
