"""The research graph: structure for the three gateway cases, routing to the selected experts only,
parallel fan-out (proved with a barrier), failure isolation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from coordinator_fakes import (
    ALL_EXPERTS,
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    sample_result,
)

from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.infrastructure.orchestration.graph_builder import build_research_graph
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState

EXPERT_NODES = {f"{e}_node" for e in ALL_EXPERTS}


def carried_outcomes(carried: dict[str, Any]) -> dict[str, ExpertOutcome]:
    return {e: ExpertOutcome("success", d) for e, d in carried.items()}


def results(final: dict[str, Any]) -> dict[str, Any]:
    return {e: o.data for e, o in final["experts"].items() if o.status == "success"}


def errors(final: dict[str, Any]) -> dict[str, Any]:
    return {e: o.error for e, o in final["experts"].items() if o.status == "failed"}


def state(
    experts: list[str], symbol: str = "600519.SH", outcomes: dict[str, ExpertOutcome] | None = None, **extra: Any
) -> ResearchGraphState:
    initial: ResearchGraphState = {
        "symbol": symbol,
        "selected_experts": experts,
        "options": {},
        "experts": outcomes or {},
        "overall_status": "failed",
        "analysis_date": None,
    }
    initial.update(extra)  # type: ignore[typeddict-item]
    return initial


def edges(graph: Any) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.get_graph().edges}


def test_full_graph_runs_experts_then_aggregator_debate_judge() -> None:
    graph = build_research_graph(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    found = edges(graph)
    assert {("__start__", n) for n in EXPERT_NODES} <= found  # route_to_experts may Send to any expert
    assert {(n, "aggregator_node") for n in EXPERT_NODES} <= found
    assert ("aggregator_node", "debate_node") in found
    assert ("debate_node", "judge_node") in found
    assert ("judge_node", "__end__") in found
    assert ("debate_node", "__end__") not in found


def test_debate_only_graph_ends_after_debate() -> None:
    graph = build_research_graph(FakeExpertGateway(), FakeDebateGateway(), judge_gateway=None)
    found = edges(graph)
    assert ("aggregator_node", "debate_node") in found
    assert ("debate_node", "__end__") in found
    assert "judge_node" not in graph.get_graph().nodes


@pytest.mark.parametrize("judge", [None, FakeJudgeGateway()])
def test_without_debate_gateway_aggregator_ends_whatever_the_judge(judge: FakeJudgeGateway | None) -> None:
    graph = build_research_graph(FakeExpertGateway(), debate_gateway=None, judge_gateway=judge)
    found = edges(graph)
    assert ("aggregator_node", "__end__") in found
    nodes = set(graph.get_graph().nodes)
    assert "debate_node" not in nodes
    assert "judge_node" not in nodes


async def test_only_the_selected_experts_are_called() -> None:
    gateway = FakeExpertGateway()
    final = await build_research_graph(gateway).ainvoke(state(["macro_intelligence", "catalyst_detective"]))
    assert sorted(gateway.called) == ["catalyst_detective", "macro_intelligence"]
    assert set(results(final)) == {"macro_intelligence", "catalyst_detective"}


async def test_a_single_expert_is_called_alone() -> None:
    gateway = FakeExpertGateway()
    final = await build_research_graph(gateway).ainvoke(state(["valuation_modeler"]))
    assert gateway.called == ["valuation_modeler"]
    assert results(final) == {"valuation_modeler": sample_result("valuation_modeler")}
    assert final["overall_status"] == "completed"


async def test_all_five_experts_are_called() -> None:
    gateway = FakeExpertGateway()
    final = await build_research_graph(gateway).ainvoke(state(ALL_EXPERTS))
    assert sorted(gateway.called) == sorted(ALL_EXPERTS)
    assert set(results(final)) == set(ALL_EXPERTS)


async def test_selected_experts_run_in_parallel() -> None:
    """Each expert waits until all three have started: sequential execution could never pass the
    barrier (the timeout makes that a failure rather than a hang)."""
    experts = ["technical_analyst", "valuation_modeler", "catalyst_detective"]
    gateway = FakeExpertGateway(barrier=asyncio.Barrier(len(experts)))
    async with asyncio.timeout(5):
        final = await build_research_graph(gateway).ainvoke(state(experts))
    assert set(results(final)) == set(experts)
    assert errors(final) == {}


async def test_sequential_execution_would_not_pass_the_barrier() -> None:
    """The barrier proof can fail: one party alone never gets through."""
    barrier = asyncio.Barrier(2)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2):
            await barrier.wait()


async def test_expert_options_are_passed_to_the_gateway() -> None:
    gateway = FakeExpertGateway()
    options = {"technical_analyst": {"analysis_date": "2026-02-13"}, "financial_auditor": {"limit": 5}}
    await build_research_graph(gateway).ainvoke(state(["technical_analyst", "financial_auditor"], options=options))
    assert sorted(gateway.calls, key=lambda c: c[0]) == [
        ("financial_auditor", "600519.SH", {"limit": 5}),
        ("technical_analyst", "600519.SH", {"analysis_date": "2026-02-13"}),
    ]


async def test_one_failing_expert_does_not_affect_the_others() -> None:
    gateway = FakeExpertGateway(failures={"financial_auditor": RuntimeError("research 502 upstream: down")})
    experts = ["technical_analyst", "financial_auditor", "macro_intelligence"]
    final = await build_research_graph(gateway).ainvoke(state(experts))
    assert final["overall_status"] == "partial"
    assert errors(final) == {"financial_auditor": "research 502 upstream: down"}
    assert set(results(final)) == {"technical_analyst", "macro_intelligence"}


async def test_all_experts_failing_gives_failed_and_skips_debate() -> None:
    experts = ["technical_analyst", "macro_intelligence"]
    gateway = FakeExpertGateway(failures={e: RuntimeError(f"{e} down") for e in experts})
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    final = await build_research_graph(gateway, debate, judge).ainvoke(state(experts))
    assert final["overall_status"] == "failed"
    assert results(final) == {}
    assert errors(final) == {e: f"{e} down" for e in experts}
    assert final["debate_outcome"] == {}
    assert final["verdict"] == {}
    assert final["stages"] == {"debate": StageOutcome("skipped"), "verdict": StageOutcome("skipped")}
    assert debate.calls == []
    assert judge.calls == []


async def test_full_graph_passes_results_to_debate_and_outcome_to_judge() -> None:
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    graph = build_research_graph(FakeExpertGateway(), debate, judge)
    final = await graph.ainvoke(state(["technical_analyst", "valuation_modeler"]))
    [(symbol, sent)] = debate.calls
    assert symbol == "600519.SH"
    assert set(sent) == {"technical_analyst", "valuation_modeler"}
    [(judged_symbol, outcome, context)] = judge.calls
    assert judged_symbol == "600519.SH"
    assert outcome == final["debate_outcome"]
    assert context == {"expert_results": results(final), "analysis_date": None, "failed_experts": []}
    assert final["verdict"]["action"] == "BUY"


async def test_experts_already_in_results_are_not_called_again() -> None:
    gateway = FakeExpertGateway()
    carried = {"technical_analyst": sample_result("technical_analyst")}
    final = await build_research_graph(gateway).ainvoke(
        state(
            ["technical_analyst", "macro_intelligence"],
            outcomes=carried_outcomes(carried),
        )
    )
    assert gateway.called == ["macro_intelligence"]
    assert set(results(final)) == {"technical_analyst", "macro_intelligence"}
    assert final["overall_status"] == "completed"


async def test_with_every_result_carried_the_graph_goes_straight_to_the_aggregator() -> None:
    gateway, debate = FakeExpertGateway(), FakeDebateGateway()
    carried = {"valuation_modeler": sample_result("valuation_modeler")}
    final = await build_research_graph(gateway, debate).ainvoke(
        state(["valuation_modeler"], outcomes=carried_outcomes(carried))
    )
    assert gateway.called == []
    assert final["overall_status"] == "completed"
    assert len(debate.calls) == 1
