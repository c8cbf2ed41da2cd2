"""Domain model, ports and layering: the spec's structural scenarios. What a module may import is
import-linter's to check (the root pyproject.toml's contracts); the tests here run those contracts."""

from __future__ import annotations

import inspect
import typing
from abc import ABC
from typing import Any

import pytest
from contract_testkit import assert_import_contract_kept
from coordinator_fakes import FakeExpertGateway
from langgraph.graph.state import CompiledStateGraph

from coordinator.domain.dtos.research_dtos import ResearchResult
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.infrastructure.orchestration.graph_builder import build_research_graph
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState


def test_expert_type_covers_the_five_experts() -> None:
    assert {m.name: m.value for m in ExpertType} == {
        "TECHNICAL_ANALYST": "technical_analyst",
        "FINANCIAL_AUDITOR": "financial_auditor",
        "VALUATION_MODELER": "valuation_modeler",
        "MACRO_INTELLIGENCE": "macro_intelligence",
        "CATALYST_DETECTIVE": "catalyst_detective",
    }


def test_rest_expert_string_maps_to_expert_type() -> None:
    assert ExpertType("technical_analyst") is ExpertType.TECHNICAL_ANALYST


@pytest.mark.parametrize(
    ("port", "method", "args"),
    [(IDebateGateway, "run_debate", ("X", {})), (IJudgeGateway, "run_verdict", ("X", {}, None))],
)
async def test_gateway_port_is_pure_abstract(port: type, method: str, args: tuple[Any, ...]) -> None:
    assert issubclass(port, ABC)
    assert port.__abstractmethods__ == frozenset({method})
    with pytest.raises(TypeError):
        port()
    abstract = getattr(port, method)
    assert inspect.iscoroutinefunction(abstract)
    # no implementation: the abstract method, awaited, does nothing and returns nothing
    assert await abstract(object(), *args) is None


def test_gateway_port_imports_nothing_of_the_peer_service() -> None:
    assert_import_contract_kept("coordinator-peer-ports")  # neither debate/judge nor their shared_contracts types
    assert_import_contract_kept("services-independent")


def test_layer_does_not_import_langgraph() -> None:
    assert_import_contract_kept("domain-application-no-frameworks")  # langgraph, langchain_core among them
    assert_import_contract_kept("langgraph-only-in-orchestration")


def test_langgraph_graph_is_built_in_infrastructure_orchestration() -> None:
    assert_import_contract_kept("langgraph-only-in-orchestration")
    assert build_research_graph.__module__.startswith("coordinator.infrastructure.orchestration.")
    graph = build_research_graph(FakeExpertGateway())
    assert isinstance(graph, CompiledStateGraph)  # compiled
    assert graph.builder.state_schema is ResearchGraphState


def test_module_has_the_four_layers_and_a_composition_root() -> None:
    # The layers contract names main, container, api, presentation, infrastructure, application and domain of
    # every service: a missing one breaks it ("Missing layer"), as does an import against the layering.
    assert_import_contract_kept("four-layers")


@pytest.mark.parametrize("field", ["verdict", "debate_outcome"])
def test_graph_state_has_stage_fields(field: str) -> None:
    """The spec's scenario reads the TypedDict's definition; what the graph writes there is
    test_graph_builder.py::test_full_graph_passes_results_to_debate_and_outcome_to_judge."""
    hints = typing.get_type_hints(ResearchGraphState)
    assert hints[field] == dict[str, Any]


def test_graph_state_has_the_spec_fields() -> None:
    # What the reducers do (parallel experts' results and errors merge) is test_graph_builder.py's to show.
    spec_fields = {"symbol", "selected_experts", "options", "results", "errors", "overall_status"}
    assert spec_fields | {"debate_outcome", "verdict"} <= set(typing.get_type_hints(ResearchGraphState))


def test_research_result_has_verdict_defaulting_to_none() -> None:
    field = ResearchResult.model_fields["verdict"]
    assert field.annotation == dict[str, Any] | None
    assert field.default is None
    result = ResearchResult(symbol="X", overall_status="completed", expert_results=[])
    assert result.verdict is None
    assert result.debate_outcome is None
