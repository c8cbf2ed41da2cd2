"""ResearchGatewayAdapter against the real research app, in-process (ASGI transport, lifespan
entered): the coordinator's view of the research contract for all five experts, rules engine over
the offline snapshot (no network, no LLM)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import httpx
import pytest

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.request_validation import validate_command
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import AllExpertsFailedError, PeerResponseError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.research_expert_gateway import ExpertOptions
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from coordinator.infrastructure.adapters.research_gateway_adapter import ResearchGatewayAdapter
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator
from shared_contracts.errors import InsufficientHistoryError
from shared_contracts.projection import project_expert_results

research_main = pytest.importorskip("research.main", reason="the research package is not installed alongside")
research_settings = pytest.importorskip("research.settings")

SYMBOL = "600519.SH"
BASE = "http://research.in-process"


@pytest.fixture
async def adapter() -> AsyncIterator[ResearchGatewayAdapter]:
    settings = research_settings.Settings(analysis_engine="rules", market_data_provider="offline", log_json=True)
    app = research_main.create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            yield ResearchGatewayAdapter(PeerClient("research", BASE, client, CallPolicy(budget_seconds=60.0)))


def request(*experts: str) -> ResearchRequest:
    return validate_command(ResearchCommand(symbol=SYMBOL, experts=list(experts)), today=date.today)


@pytest.mark.parametrize("expert", [e.value for e in ExpertType])
async def test_each_expert_answers_with_a_result_the_debate_projection_reads(
    adapter: ResearchGatewayAdapter, expert: str
) -> None:
    options = ExpertOptions(request(expert).options[expert])
    data = await adapter.run_expert(ExpertType(expert), SYMBOL, options)
    assert options.attempts == 1
    assert data["symbol"] == SYMBOL
    assert data["engine"]["kind"] == "rules"
    summary = project_expert_results({expert: data})[expert]
    assert summary.signal
    assert 0.0 <= summary.confidence <= 1.0


async def test_a_symbol_without_data_is_a_readable_404(adapter: ResearchGatewayAdapter) -> None:
    with pytest.raises(PeerResponseError) as caught:
        await adapter.run_expert(ExpertType.VALUATION_MODELER, "999999.SZ", {})
    assert caught.value.status == 404
    assert str(caught.value).startswith("research 404 ")


async def test_all_five_experts_through_the_graph(adapter: ResearchGatewayAdapter) -> None:
    result = await LangGraphResearchOrchestrator(adapter).run(request(*(e.value for e in ExpertType)))
    failures = {i.expert_type.value: i.error for i in result.expert_results if i.status == "failed"}
    assert failures == {}
    assert result.overall_status == "completed"


async def test_every_expert_answers_as_of_the_researchs_one_date(adapter: ResearchGatewayAdapter) -> None:
    experts = [e.value for e in ExpertType]
    dated = validate_command(ResearchCommand(symbol=SYMBOL, experts=experts, analysis_date="2024-06-28"))
    result = await LangGraphResearchOrchestrator(adapter).run(dated)
    assert result.overall_status == "completed", [i.error for i in result.expert_results]
    for item in result.expert_results:
        assert item.data is not None
        assert item.data["analysis_date"] == "2024-06-28", item.expert_type
        assert item.data["as_of"] <= "2024-06-28", item.expert_type


async def test_a_date_before_any_usable_data_is_the_callers_insufficient_history(
    adapter: ResearchGatewayAdapter,
) -> None:
    experts = [e.value for e in ExpertType]
    too_early = validate_command(ResearchCommand(symbol=SYMBOL, experts=experts, analysis_date="1990-01-02"))
    result = await LangGraphResearchOrchestrator(adapter).run(too_early)
    assert result.overall_status == "failed"
    error = AllExpertsFailedError.for_result(result)
    assert error.reason is InsufficientHistoryError
    said = [i.failure.earliest_usable_date for i in result.expert_results if i.failure is not None]
    assert len(said) == len(experts)
    assert error.earliest_usable_date is not None
    assert error.earliest_usable_date == min(d for d in said if d is not None)
    assert all(i.error and i.error.startswith("research 422 insufficient_history: ") for i in result.expert_results)
