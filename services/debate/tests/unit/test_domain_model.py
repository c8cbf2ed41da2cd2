"""Domain: DebateInput/ExpertSummary, enums, the abstract ports and their imports (import-linter's
contracts in the root pyproject.toml, run by the tests here)."""

from __future__ import annotations

import inspect

import pytest
from contract_testkit import assert_import_contract_kept
from debate_fakes import BULK_SENTINELS, raw_research_results, summary
from pydantic import ValidationError

from debate.domain.dtos.debate_input import DebateInput, ExpertSummary
from debate.domain.model.enums import ArgumentStrength, DebateDirection, RiskLevel
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from shared_contracts import debate as wire_debate
from shared_contracts.projection import ExpertSummary as SharedExpertSummary
from shared_contracts.projection import project_expert_results


def test_expert_summary_holds_only_the_four_normalized_fields() -> None:
    debate_input = DebateInput(symbol="600519.SH", expert_summaries=project_expert_results(raw_research_results()))

    assert ExpertSummary is SharedExpertSummary  # re-exported, not copied
    assert len(debate_input.expert_summaries) == 5
    for expert_summary in debate_input.expert_summaries.values():
        assert set(expert_summary.model_dump()) == {"signal", "confidence", "reasoning", "risk_warning"}
    dumped = debate_input.model_dump_json()
    for field, sentinel in BULK_SENTINELS.items():
        assert sentinel not in dumped, field


def test_expert_summary_rejects_raw_bulk_fields() -> None:
    with pytest.raises(ValidationError, match="input"):
        ExpertSummary.model_validate(
            {"signal": "BULLISH", "confidence": 0.5, "reasoning": "r", "risk_warning": "", "input": "prompt"}
        )


def test_debate_input_builds_with_only_three_of_five_experts() -> None:
    results = raw_research_results()
    results["macro_intelligence"] = {"status": "failed", "error": "timeout"}
    results["catalyst_detective"] = {"status": "failed", "error": "no news"}

    debate_input = DebateInput(symbol="600519.SH", expert_summaries=project_expert_results(results))

    assert set(debate_input.expert_summaries) == {"technical_analyst", "financial_auditor", "valuation_modeler"}


def test_debate_input_refuses_empty_summaries_blank_symbol_and_unknown_signals() -> None:
    with pytest.raises(ValidationError):
        DebateInput(symbol="AAPL", expert_summaries={})
    with pytest.raises(ValidationError):
        DebateInput(symbol="  ", expert_summaries={"technical_analyst": summary("BULLISH", 0.5)})
    with pytest.raises(ValidationError, match="unknown signal"):
        DebateInput(symbol="AAPL", expert_summaries={"technical_analyst": summary("MOON", 0.5)})


def test_debate_input_reads_every_vocabulary_as_a_stance() -> None:
    debate_input = DebateInput(
        symbol="AAPL",
        expert_summaries={
            "valuation_modeler": summary("OVERVALUED", 0.5),
            "macro_intelligence": summary("favorable", 0.5),
            "catalyst_detective": summary("NEUTRAL", 0.5),
        },
    )
    assert debate_input.stance("valuation_modeler") == "BEARISH"
    assert debate_input.stance("macro_intelligence") == "BULLISH"
    assert debate_input.stance("catalyst_detective") == "NEUTRAL"


def test_debate_direction_has_exactly_bullish_bearish_neutral() -> None:
    assert {m.value for m in DebateDirection} == {"BULLISH", "BEARISH", "NEUTRAL"}


def test_risk_level_has_exactly_high_medium_low() -> None:
    assert {m.value for m in RiskLevel} == {"HIGH", "MEDIUM", "LOW"}
    assert {m.value for m in ArgumentStrength} == {"HIGH", "MEDIUM", "LOW"}
    assert RiskLevel is wire_debate.RiskLevel  # one RiskLevel: the published one, which the judge uses too


@pytest.mark.parametrize(
    ("port", "methods"),
    [
        (IBullAdvocateAgentPort, {"advocate"}),
        (IBearAdvocateAgentPort, {"advocate"}),
        (IResolutionAgentPort, {"resolve"}),
        (ILLMPort, {"generate"}),
    ],
)
def test_ports_are_pure_abstract_classes(port: type, methods: set[str]) -> None:
    from abc import ABC

    assert issubclass(port, ABC)
    assert port.__abstractmethods__ == frozenset(methods)  # type: ignore[attr-defined]
    for name in methods:
        assert inspect.iscoroutinefunction(getattr(port, name))
    with pytest.raises(TypeError):
        port()


def test_ports_import_no_infrastructure() -> None:
    assert_import_contract_kept("four-layers")  # the domain imports no infrastructure, application, presentation
    assert_import_contract_kept("domain-application-no-frameworks")  # langgraph, openai, httpx, fastapi, LLM kit
    assert_import_contract_kept("debate-ports-own-domain")


def test_llm_port_is_the_debates_own_and_does_not_import_research() -> None:
    assert ILLMPort.__module__ == "debate.domain.ports.llm_port"
    assert_import_contract_kept("services-independent")
    assert inspect.signature(ILLMPort.generate).parameters.keys() == {"self", "prompt", "system_message", "temperature"}
