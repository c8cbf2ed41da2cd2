"""ResearchGatewayAdapter against the research HTTP contract (respx)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import ALL_EXPERTS, sample_result

from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import PeerContractError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.research_expert_gateway import ExpertOptions
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from coordinator.infrastructure.adapters.research_gateway_adapter import ResearchGatewayAdapter
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator

BASE = "http://research.test"
POLICY = CallPolicy(budget_seconds=2.0, backoff_initial_seconds=0, backoff_max_seconds=0, backoff_jitter_seconds=0)


def url(expert: str) -> str:
    return f"{BASE}/api/v1/research/experts/{expert}"


@pytest.fixture
async def adapter() -> AsyncIterator[ResearchGatewayAdapter]:
    async with httpx.AsyncClient() as client:
        yield ResearchGatewayAdapter(PeerClient("research", BASE, client, POLICY))


OPTIONS: dict[str, dict[str, Any]] = {
    "technical_analyst": {"analysis_date": "2026-02-13"},
    "financial_auditor": {"limit": 5},
    "valuation_modeler": {},
    "macro_intelligence": {},
    "catalyst_detective": {},
}


@pytest.mark.parametrize("expert", ALL_EXPERTS)
@respx.mock
async def test_dispatches_each_expert_to_its_endpoint_with_symbol_and_options(
    adapter: ResearchGatewayAdapter, expert: str
) -> None:
    routes = {e: respx.post(url(e)).mock(return_value=httpx.Response(200, json=sample_result(e))) for e in ALL_EXPERTS}
    data = await adapter.run_expert(ExpertType(expert), "600519.SH", OPTIONS[expert])
    assert data == sample_result(expert)
    assert [e for e, r in routes.items() if r.called] == [expert]
    sent = json.loads(routes[expert].calls.last.request.content)
    assert sent == {"symbol": "600519.SH", "options": OPTIONS[expert]}


@pytest.mark.parametrize("expert", ALL_EXPERTS)
@respx.mock
async def test_the_researchs_analysis_date_is_sent_top_level_beside_the_experts_options(
    adapter: ResearchGatewayAdapter, expert: str
) -> None:
    route = respx.post(url(expert)).mock(return_value=httpx.Response(200, json=sample_result(expert)))
    options = ExpertOptions(OPTIONS[expert], analysis_date=date(2025, 9, 30))
    await adapter.run_expert(ExpertType(expert), "600519.SH", options)
    sent = json.loads(route.calls.last.request.content)
    assert sent == {"symbol": "600519.SH", "analysis_date": "2025-09-30", "options": OPTIONS[expert]}


@respx.mock
async def test_catalyst_detective_result_is_a_plain_dict_with_its_nested_result(
    adapter: ResearchGatewayAdapter,
) -> None:
    respx.post(url("catalyst_detective")).mock(
        return_value=httpx.Response(200, json=sample_result("catalyst_detective"))
    )
    data = await adapter.run_expert(ExpertType.CATALYST_DETECTIVE, "600519.SH")
    assert type(data) is dict
    assert data["result"]["catalyst_assessment"] == "POSITIVE"
    assert data["raw_llm_output"] == "raw llm"  # handed on unchanged; the debate adapter filters


@respx.mock
async def test_the_attempts_a_success_took_are_set_on_the_options(adapter: ResearchGatewayAdapter) -> None:
    respx.post(url("valuation_modeler")).mock(
        side_effect=[httpx.Response(503), httpx.Response(200, json=sample_result("valuation_modeler"))]
    )
    options = ExpertOptions()
    data = await adapter.run_expert(ExpertType.VALUATION_MODELER, "600519.SH", options)
    assert options.attempts == 2
    assert data["valuation_verdict"] == "UNDERVALUED"


@respx.mock
async def test_a_result_that_breaks_the_contract_is_an_error(adapter: ResearchGatewayAdapter) -> None:
    broken = sample_result("technical_analyst")
    del broken["signal"]
    respx.post(url("technical_analyst")).mock(return_value=httpx.Response(200, json=broken))
    with pytest.raises(PeerContractError, match=r"research technical_analyst: result breaks the contract \(signal"):
        await adapter.run_expert(ExpertType.TECHNICAL_ANALYST, "600519.SH")


@respx.mock
async def test_timeout_fails_that_expert_only_with_a_clear_error() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, json=sample_result("macro_intelligence"))

    respx.post(url("macro_intelligence")).mock(side_effect=slow)
    respx.post(url("technical_analyst")).mock(return_value=httpx.Response(200, json=sample_result("technical_analyst")))
    respx.post(url("valuation_modeler")).mock(return_value=httpx.Response(200, json=sample_result("valuation_modeler")))
    async with httpx.AsyncClient() as client:
        adapter = ResearchGatewayAdapter(PeerClient("research", BASE, client, CallPolicy(budget_seconds=0.2)))
        request = ResearchRequest(
            symbol="600519.SH",
            experts=[ExpertType.TECHNICAL_ANALYST, ExpertType.MACRO_INTELLIGENCE, ExpertType.VALUATION_MODELER],
        )
        result = await LangGraphResearchOrchestrator(adapter).run(request)
    by_expert = {i.expert_type.value: i for i in result.expert_results}
    assert result.overall_status == "partial"
    assert by_expert["macro_intelligence"].status == "failed"
    assert by_expert["macro_intelligence"].error == "research timed out after 0.2s (1 attempt)"
    assert by_expert["technical_analyst"].data == sample_result("technical_analyst")
    assert by_expert["valuation_modeler"].data == sample_result("valuation_modeler")
