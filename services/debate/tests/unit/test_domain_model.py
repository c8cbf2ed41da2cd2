"""Domain: DebateInput/ExpertSummary, enums, the abstract ports and their imports."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from debate_fakes import BULK_SENTINELS, raw_research_results, summary
from pydantic import ValidationError

import debate.domain.ports as ports_package
from debate.domain.dtos.debate_input import DebateInput, ExpertSummary
from debate.domain.model.enums import ArgumentStrength, DebateDirection, RiskLevel
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from shared_contracts.projection import ExpertSummary as SharedExpertSummary
from shared_contracts.projection import project_expert_results

PORTS_DIR = Path(ports_package.__file__).parent
AGENT_PORT_FILES = ["bull_advocate_agent.py", "bear_advocate_agent.py", "resolution_agent.py"]


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


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


@pytest.mark.parametrize("filename", [*AGENT_PORT_FILES, "llm_port.py"])
def test_ports_import_no_infrastructure(filename: str) -> None:
    imported = _imported_modules(PORTS_DIR / filename)
    forbidden = ("infrastructure", "langgraph", "openai", "httpx", "fastapi", "shared_contracts.llm")
    offending = {m for m in imported if any(part in m for part in forbidden)}
    assert offending == set()
    assert all(m.startswith(("debate.domain", "abc", "__future__")) for m in imported), imported


def test_llm_port_is_the_debates_own_and_does_not_import_research() -> None:
    assert ILLMPort.__module__ == "debate.domain.ports.llm_port"
    imported = _imported_modules(PORTS_DIR / "llm_port.py")
    assert not any(m.startswith("research") for m in imported)
    assert inspect.signature(ILLMPort.generate).parameters.keys() == {"self", "prompt", "system_message", "temperature"}
