"""DebateGatewayAdapter: the exact outgoing body (summaries of successful experts, filtered) and the
reply as a dict."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx
from contract_testkit import BULK_FIELDS
from coordinator_fakes import ALL_EXPERTS, debate_outcome, sample_result

from coordinator.domain.exceptions import GatewayError, PeerContractError
from coordinator.infrastructure.adapters.debate_gateway_adapter import DebateGatewayAdapter
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from shared_contracts.debate import DebateOutcome

BASE = "http://debate.test"
URL = f"{BASE}/api/v1/debate/run"


@pytest.fixture
async def adapter() -> AsyncIterator[DebateGatewayAdapter]:
    async with httpx.AsyncClient() as client:
        yield DebateGatewayAdapter(PeerClient("debate", BASE, client, CallPolicy(budget_seconds=2.0)))


async def sent_body(adapter: DebateGatewayAdapter, results: dict[str, Any]) -> dict[str, Any]:
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=debate_outcome()))
        await adapter.run_debate("600519.SH", results)
        body: dict[str, Any] = json.loads(route.calls.last.request.content)
    return body


async def test_posts_to_the_debate_run_endpoint_and_returns_the_outcome_dict(adapter: DebateGatewayAdapter) -> None:
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=debate_outcome()))
        outcome = await adapter.run_debate("600519.SH", {"technical_analyst": sample_result("technical_analyst")})
    assert route.call_count == 1
    assert type(outcome) is dict
    assert outcome == DebateOutcome.model_validate(debate_outcome()).model_dump(mode="json")


async def test_technical_analyst_is_projected_and_filtered(adapter: DebateGatewayAdapter) -> None:
    body = await sent_body(adapter, {"technical_analyst": sample_result("technical_analyst")})
    assert body.pop("data_quality") == {"technical_analyst": {"data_gaps": 0, "staleness": 0}}
    assert body == {
        "symbol": "600519.SH",
        "expert_results": {
            "technical_analyst": {
                "signal": "BULLISH",
                "confidence": 0.78,
                "reasoning": "均线多头排列，MACD 金叉",
                "risk_warning": "RSI 接近超买",
            }
        },
    }


async def test_valuation_modeler_fields_are_renamed(adapter: DebateGatewayAdapter) -> None:
    body = await sent_body(adapter, {"valuation_modeler": sample_result("valuation_modeler")})
    assert body["expert_results"]["valuation_modeler"] == {
        "signal": "UNDERVALUED",
        "confidence": 0.65,
        "reasoning": "PE 处于历史低位",
        "risk_warning": "行业政策; 需求放缓",
    }


async def test_catalyst_detective_is_flattened(adapter: DebateGatewayAdapter) -> None:
    body = await sent_body(adapter, {"catalyst_detective": sample_result("catalyst_detective")})
    assert body["expert_results"]["catalyst_detective"] == {
        "signal": "POSITIVE",
        "confidence": 0.7,
        "reasoning": "提价预期",
        "risk_warning": "减持: 股东减持计划",
    }


async def test_no_debug_or_bulk_field_is_sent(adapter: DebateGatewayAdapter) -> None:
    body = await sent_body(adapter, {e: sample_result(e) for e in ALL_EXPERTS})
    for summary in body["expert_results"].values():
        assert set(summary) == {"signal", "confidence", "reasoning", "risk_warning"}
        assert not BULK_FIELDS & set(summary)
    assert "raw llm" not in json.dumps(body, ensure_ascii=False)


async def test_only_successful_experts_are_included(adapter: DebateGatewayAdapter) -> None:
    results: dict[str, Any] = {e: sample_result(e) for e in ALL_EXPERTS[:3]}
    results["macro_intelligence"] = None  # failed: None
    results["catalyst_detective"] = {"status": "failed", "error": "timed out"}  # failed: an envelope
    body = await sent_body(adapter, results)
    assert sorted(body["expert_results"]) == sorted(ALL_EXPERTS[:3])


async def test_nothing_to_debate_is_an_error_without_a_call(adapter: DebateGatewayAdapter) -> None:
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=debate_outcome()))
        with pytest.raises(GatewayError, match="no successful expert result"):
            await adapter.run_debate("600519.SH", {"macro_intelligence": None})
    assert route.call_count == 0


async def test_an_invalid_reply_breaks_the_contract(adapter: DebateGatewayAdapter) -> None:
    with respx.mock:
        respx.post(URL).mock(return_value=httpx.Response(200, json={"direction": "UP"}))
        with pytest.raises(PeerContractError, match="DebateOutcome"):
            await adapter.run_debate("600519.SH", {"technical_analyst": sample_result("technical_analyst")})


async def test_failed_experts_and_data_quality_travel_beside_the_summaries(adapter: DebateGatewayAdapter) -> None:
    technical = sample_result("technical_analyst") | {"data_gaps": ["only 120 bars"], "staleness": ["old bar"]}
    body = await sent_body(adapter, {"technical_analyst": technical, "macro_intelligence": None})
    assert body["failed_experts"] == ["macro_intelligence"]
    assert body["data_quality"] == {"technical_analyst": {"data_gaps": 1, "staleness": 1}}
    assert set(body["expert_results"]["technical_analyst"]) == {"signal", "confidence", "reasoning", "risk_warning"}


async def test_the_stocks_composite_standing_goes_beside_the_summaries(adapter: DebateGatewayAdapter) -> None:
    composite = {"score": -0.4, "universe_rank": 0.1, "coverage": 0.8, "factors_used": ["return_1m"]}
    technical = sample_result("technical_analyst") | {
        "relative_standing": {
            "universe": "offline-snapshot symbols (121 symbols)",
            "universe_size": 121,
            "as_of": "2024-06-28",
            "factors": {},
            "coverage": 1.0,
            "composite": composite | {"universe_scored": 121},
        }
    }
    body = await sent_body(adapter, {"technical_analyst": technical})
    assert body["composite"] == composite | {"universe_scored": 121}
    assert "relative_standing" not in body["expert_results"]["technical_analyst"]
    plain = await sent_body(adapter, {"technical_analyst": sample_result("technical_analyst")})
    assert "composite" not in plain


async def test_the_language_asked_for_is_sent_with_one_debate_and_with_every_bulk_item(
    adapter: DebateGatewayAdapter,
) -> None:
    results = {"technical_analyst": sample_result("technical_analyst")}
    with respx.mock:
        one = respx.post(URL).mock(return_value=httpx.Response(200, json=debate_outcome()))
        bulk = respx.post(f"{URL}/bulk").mock(
            return_value=httpx.Response(200, json={"items": [{"symbol": "600519.SH", "result": debate_outcome()}] * 2})
        )
        await adapter.run_debate("600519.SH", results, language="en")
        await adapter.run_debate_bulk([("600519.SH", results), ("600519.SH", results)], language="en")
    assert json.loads(one.calls.last.request.content)["language"] == "en"
    assert [item["language"] for item in json.loads(bulk.calls.last.request.content)["items"]] == ["en", "en"]
