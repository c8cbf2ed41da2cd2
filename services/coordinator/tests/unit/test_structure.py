"""Domain model, ports and layering: the spec's structural scenarios."""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
from abc import ABC
from pathlib import Path
from typing import Any

import pytest

import coordinator
from coordinator.domain.dtos.research_dtos import ResearchResult
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState

PACKAGE = Path(coordinator.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _python_files(folder: str) -> list[Path]:
    files = sorted((PACKAGE / folder).rglob("*.py"))
    assert files, folder
    return files


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


@pytest.mark.parametrize(("port", "method"), [(IDebateGateway, "run_debate"), (IJudgeGateway, "run_verdict")])
def test_gateway_port_is_pure_abstract(port: type, method: str) -> None:
    assert issubclass(port, ABC)
    assert port.__abstractmethods__ == frozenset({method})
    source = inspect.getsource(getattr(port, method))
    func = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(func, ast.AsyncFunctionDef)
    # the body is the docstring only: no implementation
    assert len(func.body) == 1
    assert isinstance(func.body[0], ast.Expr)
    assert isinstance(func.body[0].value, ast.Constant)
    assert isinstance(func.body[0].value.value, str)


@pytest.mark.parametrize("module", ["debate_gateway.py", "judge_gateway.py"])
def test_gateway_port_imports_nothing_of_the_peer_service(module: str) -> None:
    imports = _imports(PACKAGE / "domain" / "ports" / module)
    assert imports <= {"__future__", "abc", "typing"}, imports


@pytest.mark.parametrize("layer", ["application", "domain"])
def test_layer_does_not_import_langgraph(layer: str) -> None:
    for path in _python_files(layer):
        for name in _imports(path):
            assert not name.startswith(("langgraph", "langchain")), f"{path}: {name}"


def test_langgraph_graph_is_built_in_infrastructure_orchestration() -> None:
    users = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if any(n.startswith("langgraph") for n in _imports(path))
    )
    assert users
    assert all(u.startswith("infrastructure/orchestration/") for u in users), users
    builder = (PACKAGE / "infrastructure" / "orchestration" / "graph_builder.py").read_text(encoding="utf-8")
    assert "StateGraph(ResearchGraphState)" in builder
    assert ".compile()" in builder


def test_module_has_the_four_layers_and_a_composition_root() -> None:
    for folder in ("application", "domain", "infrastructure", "presentation"):
        assert (PACKAGE / folder).is_dir(), folder
    assert (PACKAGE / "container.py").is_file()
    assert (PACKAGE / "api" / "routes.py").is_file()


@pytest.mark.parametrize("field", ["verdict", "debate_outcome"])
def test_graph_state_has_stage_fields(field: str) -> None:
    hints = typing.get_type_hints(ResearchGraphState)
    assert hints[field] == dict[str, Any]


def test_graph_state_has_the_spec_fields_with_reducers() -> None:
    hints = typing.get_type_hints(ResearchGraphState, include_extras=True)
    spec_fields = {
        "symbol",
        "selected_experts",
        "options",
        "results",
        "errors",
        "overall_status",
        "debate_outcome",
        "verdict",
    }
    assert set(hints) == spec_fields | {"analysis_date", "failures"}  # the research's day; why experts failed
    for merged in ("results", "errors", "failures"):
        assert typing.get_origin(hints[merged]) is typing.Annotated
        assert hints[merged].__metadata__[0].__name__ == "merge_dicts"


def test_research_result_has_verdict_defaulting_to_none() -> None:
    field = ResearchResult.model_fields["verdict"]
    assert field.annotation == dict[str, Any] | None
    assert field.default is None
    result = ResearchResult(symbol="X", overall_status="completed", expert_results=[])
    assert result.verdict is None
    assert result.debate_outcome is None
