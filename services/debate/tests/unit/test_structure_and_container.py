"""Module layout (an import-linter contract), route registration, and what the composition root builds."""

from __future__ import annotations

import pytest
from contract_testkit import assert_import_contract_kept
from debate_fakes import raw_research_results, scripted_llm

from debate.api.routes import ROUTERS
from debate.container import build_container
from debate.domain.dtos.debate_input import DebateInput
from debate.main import create_app
from debate.presentation.rest import debate_router
from debate.settings import Settings
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.projection import project_expert_results

LLM = {"analysis_engine": "llm", "llm_base_url": "http://llm.test/v1", "llm_model": "m", "log_json": False}


def test_the_module_has_the_four_layers_and_a_composition_root() -> None:
    # The layers contract names main, container, api, presentation, infrastructure, application and domain of
    # every service: a missing one breaks it ("Missing layer"), as does an import against the layering.
    assert_import_contract_kept("four-layers")


def test_the_debate_router_is_registered_in_api_routes() -> None:
    assert debate_router.router in ROUTERS
    app = create_app(Settings.model_validate({"analysis_engine": "rules", "log_json": False}))
    assert "post" in app.openapi()["paths"]["/api/v1/debate/run"]


async def test_container_with_a_replaced_llm_port_runs_the_whole_chain() -> None:
    llm = scripted_llm()
    container = build_container(Settings.model_validate(LLM), llm=llm)
    the_input = DebateInput(symbol="AAPL", expert_summaries=project_expert_results(raw_research_results()))
    outcome = await container.debate_service.run(the_input)
    assert [c["role"] for c in llm.calls][-1] == "RESOLUTION"
    assert len(llm.calls) == 3
    assert outcome.engine.kind == "llm"


async def test_container_picks_the_rules_engine_without_an_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LLM_BASE_URL", "LLM_API_KEY", "ANALYSIS_ENGINE"):
        monkeypatch.delenv(variable, raising=False)
    container = build_container(Settings.model_validate({"analysis_engine": "auto", "log_json": False}))
    assert container.chat is None
    the_input = DebateInput(symbol="AAPL", expert_summaries=project_expert_results(raw_research_results()))
    outcome = await container.debate_service.run(the_input)
    assert outcome.engine.model_dump() == {"kind": "rules", "model": None, "fallback_reason": None}
    assert "AAPL" in outcome.bull_case.core_thesis


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
