"""aggregator_node, the expert nodes, debate_node and judge_node in isolation."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import structlog
from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway, debate_outcome, sample_result
from langgraph.runtime import Runtime

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.infrastructure.orchestration.graph_nodes import (
    STARTED,
    aggregator_node,
    create_debate_node,
    create_expert_node,
    create_judge_node,
    route_to_experts,
)
from coordinator.infrastructure.orchestration.graph_state import ResearchContext, ResearchGraphState, merge_dicts


def state(**values: Any) -> ResearchGraphState:
    base: dict[str, Any] = {
        "symbol": "600519.SH",
        "selected_experts": ["technical_analyst", "macro_intelligence"],
        "options": {},
        "experts": {},
        "overall_status": "completed",
        "analysis_date": None,
    }
    base.update(values)
    return base  # type: ignore[return-value]


def ok(*experts: str) -> dict[str, ExpertOutcome]:
    return {e: ExpertOutcome("success", sample_result(e)) for e in experts}


def bad(**errors: str) -> dict[str, ExpertOutcome]:
    return {e: ExpertOutcome("failed", error=error) for e, error in errors.items()}


def runtime(carried: dict[str, Any] | None = None, notes: list[Any] | None = None) -> Runtime[ResearchContext]:
    return Runtime(context=ResearchContext(carried), stream_writer=(notes.append if notes is not None else print))


def test_merge_dicts_merges_parallel_writes() -> None:
    assert merge_dicts({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    assert merge_dicts(None, {"b": 2}) == {"b": 2}


@pytest.mark.parametrize(
    ("succeeded", "failed", "expected"),
    [
        (["technical_analyst", "macro_intelligence"], [], "completed"),
        (["technical_analyst"], ["macro_intelligence"], "partial"),
        ([], ["technical_analyst", "macro_intelligence"], "failed"),
    ],
)
async def test_aggregator_sets_overall_status(succeeded: list[str], failed: list[str], expected: str) -> None:
    update = await aggregator_node(state(experts=ok(*succeeded) | bad(**dict.fromkeys(failed, "boom"))))
    assert update == {"overall_status": expected}


def test_route_sends_the_pending_experts_with_the_state() -> None:
    sends = route_to_experts(state(experts=ok("technical_analyst")))
    assert isinstance(sends, list)
    assert [s.node for s in sends] == ["macro_intelligence_node"]
    assert sends[0].arg["symbol"] == "600519.SH"


async def test_an_expert_node_notes_it_starts_and_writes_its_outcome() -> None:
    notes: list[Any] = []
    node = create_expert_node(ExpertType.TECHNICAL_ANALYST, FakeExpertGateway())
    update = await node(state(), runtime(notes=notes))
    assert notes == [{STARTED: "technical_analyst_node"}]
    outcome = update["experts"]["technical_analyst"]
    assert outcome.status == "success"
    assert outcome.data == sample_result("technical_analyst")
    assert outcome.duration_ms is not None
    assert update["results"] == {"technical_analyst": outcome.data}  # the spec's view of the same outcome


async def test_debate_node_skips_when_every_expert_failed() -> None:
    debate = FakeDebateGateway()
    update = await create_debate_node(debate)(state(overall_status="failed"), runtime())
    assert update == {"debate_outcome": {}, "stages": {"debate": StageOutcome("skipped")}}
    assert debate.calls == []


async def test_debate_node_writes_the_outcome() -> None:
    debate = FakeDebateGateway()
    update = await create_debate_node(debate)(
        state(experts=ok("technical_analyst"), overall_status="partial"), runtime()
    )
    assert update["debate_outcome"] == debate_outcome()
    assert update["stages"]["debate"].status == "success"
    assert debate.calls == [("600519.SH", {"technical_analyst": sample_result("technical_analyst")})]


async def test_a_carried_debate_outcome_comes_from_the_runtime_context() -> None:
    debate = FakeDebateGateway()
    carried = debate_outcome() | {"conflict_resolution": "carried"}
    update = await create_debate_node(debate)(state(experts=ok("technical_analyst")), runtime(carried))
    assert update == {"debate_outcome": carried, "stages": {"debate": StageOutcome("success")}}
    assert debate.calls == []


async def test_debate_failure_leaves_empty_outcome_and_status_untouched() -> None:
    debate = FakeDebateGateway(error=ValueError("LLM output is not JSON"))
    with structlog.testing.capture_logs() as logs:
        update = await create_debate_node(debate)(
            state(experts=ok("technical_analyst"), overall_status="partial"), runtime()
        )
    assert set(update) == {"debate_outcome", "stages"}  # no overall_status key: it stays what it was
    assert update["debate_outcome"] == {}
    assert update["stages"]["debate"].status == "failed"
    assert update["stages"]["debate"].error == "LLM output is not JSON"
    assert {"event": "debate_failed", "error": "LLM output is not JSON", "log_level": "error"} in logs


async def test_judge_node_runs_on_a_debate_outcome() -> None:
    judge = FakeJudgeGateway()
    outcome = debate_outcome()
    options = {"technical_analyst": {"analysis_date": "2026-02-13"}}
    update = await create_judge_node(judge)(
        state(
            debate_outcome=outcome, experts=ok("technical_analyst"), options=options, analysis_date=date(2026, 2, 13)
        ),
        runtime(),
    )
    assert update["verdict"]["action"] == "BUY"
    # The analysis date bounds the reference price: an analysis of the past is priced in the past.
    results = {"technical_analyst": sample_result("technical_analyst")}
    assert judge.calls == [
        ("600519.SH", outcome, {"expert_results": results, "analysis_date": "2026-02-13", "failed_experts": []})
    ]


async def test_judge_node_tells_the_judge_which_experts_failed() -> None:
    judge = FakeJudgeGateway()
    errors = bad(valuation_modeler="research 404 data_unavailable", macro_intelligence="research 503")
    await create_judge_node(judge)(
        state(debate_outcome=debate_outcome(), experts=errors, analysis_date=date(2025, 9, 30)), runtime()
    )
    [(_, _, context)] = judge.calls
    assert context is not None
    assert context["failed_experts"] == ["macro_intelligence", "valuation_modeler"]
    assert context["analysis_date"] == "2025-09-30"


@pytest.mark.parametrize("empty", [{}, None])
async def test_judge_node_skips_without_debate_outcome(empty: dict[str, Any] | None) -> None:
    judge = FakeJudgeGateway()
    update = await create_judge_node(judge)(state(debate_outcome=empty), runtime())
    assert update == {"verdict": {}, "stages": {"verdict": StageOutcome("skipped")}}
    assert judge.calls == []


async def test_judge_failure_leaves_empty_verdict_and_the_rest_untouched() -> None:
    judge = FakeJudgeGateway(error=RuntimeError("judge 503 llm_unavailable: down"))
    with structlog.testing.capture_logs() as logs:
        update = await create_judge_node(judge)(
            state(debate_outcome=debate_outcome(), overall_status="partial"), runtime()
        )
    assert update["verdict"] == {}  # neither overall_status nor debate_outcome is written
    assert set(update) == {"verdict", "stages"}
    assert update["stages"]["verdict"].status == "failed"
    assert {"event": "verdict_failed", "error": "judge 503 llm_unavailable: down", "log_level": "error"} in logs


async def test_an_unexpected_expert_failure_is_recorded_with_secrets_masked() -> None:
    leaking = FakeExpertGateway(failures={"technical_analyst": RuntimeError("boom Bearer sk-test-SECRET-123456")})
    update = await create_expert_node(ExpertType.TECHNICAL_ANALYST, leaking)(state(), runtime())
    error = update["experts"]["technical_analyst"].error
    assert update["errors"] == {"technical_analyst": error}  # the spec's view of the same outcome
    assert "sk-test-SECRET-123456" not in error
    assert error.startswith("boom")


# --- token budget (issue 41) ---------------------------------------------------------------------------------------


async def test_parallel_experts_share_what_is_left_of_the_budget_evenly() -> None:
    gateway = FakeExpertGateway()
    node = create_expert_node(ExpertType.TECHNICAL_ANALYST, gateway)
    await node(state(token_budget=1000, tokens_spent=100), runtime())  # two experts still to run
    options = gateway.calls[0][2]
    assert getattr(options, "token_budget", None) == 450


async def test_an_expert_whose_share_is_nothing_fails_without_calling_its_peer() -> None:
    gateway = FakeExpertGateway()
    update = await create_expert_node(ExpertType.TECHNICAL_ANALYST, gateway)(state(token_budget=1), runtime())
    assert gateway.calls == []
    failed_outcome = update["experts"]["technical_analyst"]
    assert failed_outcome.status == "failed"
    assert failed_outcome.error.startswith("token_budget_exhausted")


async def test_an_expert_adds_the_tokens_its_result_used() -> None:
    used = {"llm_calls": 1, "input_tokens": 70, "output_tokens": 5, "estimated": False, "model": "m"}

    class Reporting(FakeExpertGateway):
        async def run_expert(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {**await super().run_expert(*args, **kwargs), "usage": used}

    update = await create_expert_node(ExpertType.TECHNICAL_ANALYST, Reporting())(state(token_budget=500), runtime())
    assert update["tokens_spent"] == 75


async def test_a_spent_budget_fails_debate_and_judge_without_calling_them() -> None:
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    spent = state(experts=ok("technical_analyst", "macro_intelligence"), token_budget=100, tokens_spent=100)
    debate_update = await create_debate_node(debate)(spent, runtime())
    after_debate = {**spent, "stages": debate_update["stages"], "debate_outcome": {}}
    judge_update = await create_judge_node(judge)(after_debate, runtime())  # type: ignore[arg-type]
    assert debate.calls == []
    assert judge.calls == []
    assert debate_update["stages"]["debate"].error.startswith("token_budget_exhausted")
    assert judge_update["stages"]["verdict"].status == "failed"
    assert judge_update["stages"]["verdict"].error.startswith("token_budget_exhausted")
