"""aggregator_node, debate_node and judge_node in isolation."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import structlog
from coordinator_fakes import FakeDebateGateway, FakeJudgeGateway, debate_outcome, sample_result

from coordinator.domain.model.enums import ExpertType
from coordinator.infrastructure.orchestration.graph_nodes import (
    aggregator_node,
    create_debate_node,
    create_judge_node,
    route_to_experts,
)
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState, merge_dicts


def state(**values: Any) -> ResearchGraphState:
    base: dict[str, Any] = {
        "symbol": "600519.SH",
        "selected_experts": ["technical_analyst", "macro_intelligence"],
        "options": {},
        "results": {},
        "errors": {},
        "overall_status": "completed",
        "debate_outcome": {},
        "verdict": {},
        "analysis_date": None,
        "failures": {},
    }
    base.update(values)
    return base  # type: ignore[return-value]


def test_merge_dicts_merges_parallel_writes() -> None:
    assert merge_dicts({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    assert merge_dicts(None, {"b": 2}) == {"b": 2}


@pytest.mark.parametrize(
    ("results", "errors", "expected"),
    [
        (["technical_analyst", "macro_intelligence"], [], "completed"),
        (["technical_analyst"], ["macro_intelligence"], "partial"),
        ([], ["technical_analyst", "macro_intelligence"], "failed"),
    ],
)
async def test_aggregator_sets_overall_status(results: list[str], errors: list[str], expected: str) -> None:
    update = await aggregator_node(
        state(results={e: sample_result(e) for e in results}, errors={e: "boom" for e in errors})
    )
    assert update == {"overall_status": expected}


def test_route_sends_the_pending_experts_with_the_state() -> None:
    sends = route_to_experts(state(results={"technical_analyst": {}}))
    assert isinstance(sends, list)
    assert [s.node for s in sends] == ["macro_intelligence_node"]
    assert sends[0].arg["symbol"] == "600519.SH"


async def test_debate_node_skips_when_every_expert_failed() -> None:
    debate = FakeDebateGateway()
    update = await create_debate_node(debate)(state(overall_status="failed"), {})
    assert update == {"debate_outcome": {}}
    assert debate.calls == []


async def test_debate_node_writes_the_outcome() -> None:
    debate = FakeDebateGateway()
    results = {"technical_analyst": sample_result("technical_analyst")}
    update = await create_debate_node(debate)(state(results=results, overall_status="partial"), {})
    assert update == {"debate_outcome": debate_outcome()}
    assert debate.calls == [("600519.SH", results)]


async def test_debate_failure_leaves_empty_outcome_and_status_untouched() -> None:
    debate = FakeDebateGateway(error=ValueError("LLM output is not JSON"))
    with structlog.testing.capture_logs() as logs:
        update = await create_debate_node(debate)(
            state(results={"technical_analyst": {}}, overall_status="partial"), {}
        )
    assert update == {"debate_outcome": {}}  # no overall_status key: it stays what it was
    assert {"event": "debate_failed", "error": "LLM output is not JSON", "log_level": "error"} in logs


async def test_judge_node_runs_on_a_debate_outcome() -> None:
    judge = FakeJudgeGateway()
    outcome = debate_outcome()
    results = {"technical_analyst": sample_result("technical_analyst")}
    options = {"technical_analyst": {"analysis_date": "2026-02-13"}}
    update = await create_judge_node(judge)(
        state(debate_outcome=outcome, results=results, options=options, analysis_date=date(2026, 2, 13)), {}
    )
    assert update["verdict"]["action"] == "BUY"
    # The analysis date bounds the reference price: an analysis of the past is priced in the past.
    assert judge.calls == [
        ("600519.SH", outcome, {"expert_results": results, "analysis_date": "2026-02-13", "failed_experts": []})
    ]


async def test_the_judge_is_told_the_researchs_analysis_date_without_a_technical_analyst() -> None:
    judge = FakeJudgeGateway()
    results = {"valuation_modeler": sample_result("valuation_modeler")}
    await create_judge_node(judge)(
        state(debate_outcome=debate_outcome(), results=results, analysis_date=date(2025, 9, 30)), {}
    )
    [(_, _, context)] = judge.calls
    assert context is not None
    assert context["analysis_date"] == "2025-09-30"


async def test_judge_node_tells_the_judge_which_experts_failed() -> None:
    judge = FakeJudgeGateway()
    errors = {"valuation_modeler": "research 404 data_unavailable", "macro_intelligence": "research 503"}
    await create_judge_node(judge)(state(debate_outcome=debate_outcome(), errors=errors), {})
    [(_, _, context)] = judge.calls
    assert context["failed_experts"] == ["macro_intelligence", "valuation_modeler"]


@pytest.mark.parametrize("empty", [{}, None])
async def test_judge_node_skips_without_debate_outcome(empty: dict[str, Any] | None) -> None:
    judge = FakeJudgeGateway()
    update = await create_judge_node(judge)(state(debate_outcome=empty), {})
    assert update == {"verdict": {}}
    assert judge.calls == []


async def test_judge_failure_leaves_empty_verdict_and_the_rest_untouched() -> None:
    judge = FakeJudgeGateway(error=RuntimeError("judge 503 llm_unavailable: down"))
    with structlog.testing.capture_logs() as logs:
        update = await create_judge_node(judge)(state(debate_outcome=debate_outcome(), overall_status="partial"), {})
    assert update == {"verdict": {}}  # neither overall_status nor debate_outcome is written
    assert {"event": "verdict_failed", "error": "judge 503 llm_unavailable: down", "log_level": "error"} in logs


async def test_an_unexpected_expert_failure_is_recorded_with_secrets_masked() -> None:
    from coordinator_fakes import FakeExpertGateway

    from coordinator.infrastructure.orchestration.graph_nodes import create_expert_node

    leaking = FakeExpertGateway(failures={"technical_analyst": RuntimeError("boom Bearer sk-test-SECRET-123456")})
    update = await create_expert_node(ExpertType.TECHNICAL_ANALYST, leaking)(state(), {})
    error = update["errors"]["technical_analyst"]
    assert "sk-test-SECRET-123456" not in error
    assert error.startswith("boom")
