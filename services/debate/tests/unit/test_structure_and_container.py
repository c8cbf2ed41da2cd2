"""Module layout, route registration, and the composition root's wiring."""

from __future__ import annotations

from pathlib import Path

import pytest
from debate_fakes import raw_research_results, scripted_llm

import debate
from debate.api.routes import ROUTERS
from debate.container import build_container
from debate.domain.dtos.debate_input import DebateInput
from debate.infrastructure.adapters.bear_advocate_agent_adapter import BearAdvocateAgentAdapter
from debate.infrastructure.adapters.bull_advocate_agent_adapter import BullAdvocateAgentAdapter
from debate.infrastructure.adapters.llm_adapter import LLMAdapter
from debate.infrastructure.adapters.resolution_agent_adapter import ResolutionAgentAdapter
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from debate.main import create_app
from debate.presentation.rest import debate_router
from debate.settings import Settings
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.projection import project_expert_results

PACKAGE = Path(debate.__file__).parent
LLM = {"analysis_engine": "llm", "llm_base_url": "http://llm.test/v1", "llm_model": "m", "log_json": False}


def test_the_module_has_the_four_layers_and_a_composition_root() -> None:
    for layer in ("application", "domain", "infrastructure", "presentation"):
        assert (PACKAGE / layer).is_dir(), layer
    assert (PACKAGE / "container.py").is_file()
    assert (PACKAGE / "application/services/debate_service.py").is_file()
    assert (PACKAGE / "application/dtos/debate_outcome_dto.py").is_file()
    assert (PACKAGE / "domain/dtos/debate_input.py").is_file()
    assert (PACKAGE / "domain/model/enums.py").is_file()
    assert (PACKAGE / "infrastructure/adapters/llm_adapter.py").is_file()
    assert (PACKAGE / "presentation/rest/debate_router.py").is_file()


def test_the_debate_router_is_registered_in_api_routes() -> None:
    assert debate_router.router in ROUTERS
    app = create_app(Settings.model_validate({"analysis_engine": "rules", "log_json": False}))
    assert "post" in app.openapi()["paths"]["/api/v1/debate/run"]


async def test_container_wires_llm_adapter_into_the_three_agent_adapters_and_the_service() -> None:
    container = build_container(Settings.model_validate(LLM))
    service = container.debate_service
    # constructor injection: each agent adapter holds the one LLMAdapter, the service holds the agents
    bull, bear, resolution = service._bull, service._bear, service._resolution
    assert isinstance(bull, BullAdvocateAgentAdapter)
    assert isinstance(bear, BearAdvocateAgentAdapter)
    assert isinstance(resolution, ResolutionAgentAdapter)
    assert isinstance(bull._llm, LLMAdapter)
    assert bull._llm is bear._llm is resolution._llm
    assert service.engine.model_dump() == {"kind": "llm", "model": "m", "fallback_reason": None}
    await container.aclose()


async def test_container_with_a_replaced_llm_port_runs_the_whole_chain() -> None:
    llm = scripted_llm()
    container = build_container(Settings.model_validate(LLM), llm=llm)
    the_input = DebateInput(symbol="AAPL", expert_summaries=project_expert_results(raw_research_results()))
    outcome = await container.debate_service.run(the_input)
    assert [c["role"] for c in llm.calls][-1] == "RESOLUTION"
    assert len(llm.calls) == 3
    assert outcome.engine.kind == "llm"


def test_container_picks_the_rules_engine_without_an_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LLM_BASE_URL", "LLM_API_KEY", "ANALYSIS_ENGINE"):
        monkeypatch.delenv(variable, raising=False)
    container = build_container(Settings.model_validate({"analysis_engine": "auto", "log_json": False}))
    service = container.debate_service
    assert container.chat is None
    assert isinstance(service._bull, RulesBullAdvocateAgent)
    assert isinstance(service._bear, RulesBearAdvocateAgent)
    assert isinstance(service._resolution, RulesResolutionAgent)
    assert service.engine.kind == "rules"


async def test_container_wires_the_rules_fallback_only_when_asked() -> None:
    the_input = DebateInput(symbol="AAPL", expert_summaries=project_expert_results(raw_research_results()))
    failing = scripted_llm()
    failing.answers["BULL ADVOCATE"] = "no JSON here"
    with_fallback = build_container(Settings.model_validate({**LLM, "llm_fallback_to_rules": True}), llm=failing)
    outcome = await with_fallback.debate_service.run(the_input)
    assert outcome.engine.kind == "rules"
    assert (outcome.engine.fallback_reason or "").startswith("llm_output_invalid: ")
    without = build_container(Settings.model_validate(LLM), llm=failing)
    with pytest.raises(LLMOutputParseError):
        await without.debate_service.run(the_input)


def test_bad_configuration_fails_at_start_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANALYSIS_ENGINE", "llm")
    monkeypatch.setenv("LLM_BASE_URL", "http://llm.test/v1")
    monkeypatch.delenv("LLM_MODEL", raising=False)
    with pytest.raises(SystemExit, match="LLM_MODEL"):
        create_app()
    monkeypatch.setenv("ANALYSIS_ENGINE", "sometimes")
    with pytest.raises(SystemExit, match="ANALYSIS_ENGINE"):
        create_app()


async def test_report_language_reaches_both_engines_through_the_container() -> None:
    the_input = DebateInput(symbol="AAPL", expert_summaries=project_expert_results(raw_research_results()))
    rules = build_container(Settings.model_validate({"analysis_engine": "rules", "report_language": "en"}))
    outcome = await rules.debate_service.run(the_input)
    assert outcome.bull_case.core_thesis.startswith("AAPL bull case:")

    llm = scripted_llm()
    llm_container = build_container(Settings.model_validate({**LLM, "report_language": "en"}), llm=llm)
    await llm_container.debate_service.run(the_input)
    assert all("Write every text field in English." in call["system"] for call in llm.calls)
