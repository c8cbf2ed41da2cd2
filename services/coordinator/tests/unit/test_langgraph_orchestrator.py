"""LangGraphResearchOrchestrator: the graph's shape per request, result conversion, progress reporting and
what a retry carries."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    RecordingListener,
    debate_outcome,
    gateway_error,
    sample_result,
)

from coordinator.domain.dtos.research_dtos import ExpertFailure, ResearchRequest
from coordinator.domain.exceptions import PeerResponseError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.research_expert_gateway import analysis_date_of
from coordinator.infrastructure.orchestration import langgraph_orchestrator as module
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator

TA, FA, MI = ExpertType.TECHNICAL_ANALYST, ExpertType.FINANCIAL_AUDITOR, ExpertType.MACRO_INTELLIGENCE


def request(*experts: ExpertType, **extra: Any) -> ResearchRequest:
    return ResearchRequest(symbol="600519.SH", experts=list(experts), **extra)


@pytest.fixture
def built_with(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any, Any]]:
    """Records the gateways build_research_graph receives."""
    seen: list[tuple[Any, Any, Any]] = []
    real = module.build_research_graph

    def spy(gateway: Any, debate_gateway: Any = None, judge_gateway: Any = None, **kwargs: Any) -> Any:
        seen.append((gateway, debate_gateway, judge_gateway))
        return real(gateway, debate_gateway, judge_gateway, **kwargs)

    monkeypatch.setattr(module, "build_research_graph", spy)
    return seen


async def test_skip_debate_builds_the_graph_without_debate_and_judge(built_with: list[tuple[Any, Any, Any]]) -> None:
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), debate, judge)
    result = await orchestrator.run(request(TA, MI, skip_debate=True))
    [(_, debate_gw, judge_gw)] = built_with
    assert debate_gw is None
    assert judge_gw is None
    assert debate.calls == []
    assert judge.calls == []
    assert result.debate_outcome is None
    assert result.verdict is None
    assert result.overall_status == "completed"


async def test_without_skip_the_judge_gateway_reaches_the_graph(built_with: list[tuple[Any, Any, Any]]) -> None:
    judge = FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), judge)
    result = await orchestrator.run(request(TA))
    [(_, debate_gw, judge_gw)] = built_with
    assert debate_gw is not None
    assert judge_gw is not None
    assert len(judge.calls) == 1
    assert result.verdict is not None
    assert result.verdict["action"] == "BUY"
    assert result.debate_outcome == debate_outcome()


async def test_empty_verdict_becomes_none() -> None:
    orchestrator = LangGraphResearchOrchestrator(
        FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway(error=RuntimeError("judge down"))
    )
    result = await orchestrator.run(request(TA, MI))
    assert result.verdict is None
    assert result.debate_outcome is not None
    assert result.overall_status == "completed"


async def test_debate_failure_gives_no_debate_and_no_verdict() -> None:
    judge = FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(
        FakeExpertGateway(), FakeDebateGateway(error=RuntimeError("debate 502 llm_output_invalid: bad")), judge
    )
    result = await orchestrator.run(request(TA, MI))
    assert result.debate_outcome is None
    assert result.verdict is None
    assert result.overall_status == "completed"
    assert [i.status for i in result.expert_results] == ["success", "success"]
    assert judge.calls == []


async def test_result_lists_experts_in_request_order_with_data_or_error() -> None:
    gateway = FakeExpertGateway(
        failures={"financial_auditor": gateway_error(message="research 404 symbol_not_found: x")}
    )
    result = await LangGraphResearchOrchestrator(gateway).run(request(MI, FA, TA))
    assert [(i.expert_type, i.status) for i in result.expert_results] == [
        (MI, "success"),
        (FA, "failed"),
        (TA, "success"),
    ]
    assert result.expert_results[1].error == "research 404 symbol_not_found: x"
    assert result.expert_results[1].data is None
    assert result.expert_results[0].data == sample_result("macro_intelligence")
    assert result.overall_status == "partial"


async def test_listener_hears_each_stage_with_outcomes_and_attempts() -> None:
    gateway = FakeExpertGateway(
        failures={"financial_auditor": gateway_error(attempts=3)}, attempts={"technical_analyst": 2}
    )
    listener = RecordingListener()
    orchestrator = LangGraphResearchOrchestrator(gateway, FakeDebateGateway(), FakeJudgeGateway())
    await listener.run(orchestrator, request(TA, FA))

    assert listener.kinds() == ["expert", "expert", "debate", "verdict"]
    experts = {e[1]: e[2] for e in listener.events if e[0] == "expert"}
    ok, failed = experts["technical_analyst"], experts["financial_auditor"]
    assert isinstance(ok, ExpertOutcome)
    assert ok.status == "success"
    assert ok.attempts == 2
    assert ok.data == sample_result("technical_analyst")
    assert ok.duration_ms is not None
    assert failed.status == "failed"
    assert failed.attempts == 3
    assert failed.error == "research 503 upstream_down: boom"
    _, debate_stage, outcome = listener.events[2]
    assert debate_stage.status == "success"
    assert outcome == debate_outcome()
    _, verdict_stage, verdict = listener.events[3]
    assert verdict_stage.status == "success"
    assert verdict["action"] == "BUY"


async def test_listener_hears_failed_debate_then_skipped_verdict() -> None:
    listener = RecordingListener()
    orchestrator = LangGraphResearchOrchestrator(
        FakeExpertGateway(), FakeDebateGateway(error=RuntimeError("debate timed out")), FakeJudgeGateway()
    )
    await listener.run(orchestrator, request(TA))
    assert listener.events[-2][1:] == (
        StageOutcome("failed", "debate timed out", listener.events[-2][1].duration_ms),
        None,
    )
    assert listener.events[-1][1:] == (StageOutcome("skipped"), None)


async def test_listener_hears_skipped_stages_when_debate_is_skipped() -> None:
    listener = RecordingListener()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    await listener.run(orchestrator, request(TA, skip_debate=True))
    assert listener.kinds() == ["expert", "debate", "verdict"]
    assert listener.events[1][1].status == "skipped"
    assert listener.events[2][1].status == "skipped"


async def test_carried_results_are_not_rerun_and_count_in_the_status() -> None:
    gateway = FakeExpertGateway()
    debate = FakeDebateGateway()
    listener = RecordingListener()
    carried = {"technical_analyst": sample_result("technical_analyst")}
    orchestrator = LangGraphResearchOrchestrator(gateway, debate, FakeJudgeGateway())
    result = await listener.run(orchestrator, request(TA, MI, carried_results=carried))
    assert gateway.called == ["macro_intelligence"]
    assert result.overall_status == "completed"
    assert {i.expert_type: i.data for i in result.expert_results}[TA] == carried["technical_analyst"]
    assert set(debate.calls[0][1]) == {"technical_analyst", "macro_intelligence"}
    assert [name for kind, name, _ in listener.events if kind == "expert"] == ["macro_intelligence"]


async def test_carried_result_plus_failing_rerun_is_partial() -> None:
    gateway = FakeExpertGateway(failures={"macro_intelligence": RuntimeError("still down")})
    carried = {"technical_analyst": sample_result("technical_analyst")}
    result = await LangGraphResearchOrchestrator(gateway).run(request(TA, MI, carried_results=carried))
    assert result.overall_status == "partial"


async def test_carried_debate_outcome_is_used_instead_of_a_new_debate() -> None:
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    listener = RecordingListener()
    carried = {e.value: sample_result(e.value) for e in (TA, MI)}
    outcome = debate_outcome() | {"conflict_resolution": "carried"}
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), debate, judge)
    result = await listener.run(orchestrator, request(TA, MI, carried_results=carried, carried_debate_outcome=outcome))
    assert debate.calls == []
    assert judge.calls[0][1] == outcome
    assert result.debate_outcome == outcome
    assert result.verdict is not None
    assert listener.kinds() == ["verdict"]  # carried experts and debate are the caller's to store


async def test_each_expert_and_stage_reports_starting_before_it_ends() -> None:
    listener = RecordingListener()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    await listener.run(orchestrator, request(TA, MI))
    names = [type(p).__name__ + ":" + str(getattr(p, "expert", getattr(p, "stage", ""))) for p in listener.progress]
    for expert in ("technical_analyst", "macro_intelligence"):
        assert names.index(f"ExpertStarted:{expert}") < names.index(f"ExpertFinished:{expert}")
    assert names[-5:] == [
        "StageStarted:debate",
        "StageFinished:debate",
        "StageStarted:verdict",
        "StageFinished:verdict",
        "ResearchFinished:",
    ]


async def test_every_expert_is_asked_for_the_researchs_analysis_date_and_the_judge_is_told_it() -> None:
    gateway, judge = FakeExpertGateway(), FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(gateway, FakeDebateGateway(), judge)
    options = {TA.value: {"analysis_date": "2025-09-30"}, FA.value: {"limit": 5}, MI.value: {}}

    result = await orchestrator.run(request(TA, FA, MI, options=options, analysis_date=date(2025, 9, 30)))

    asked = {expert: (dict(opts or {}), analysis_date_of(opts)) for expert, _, opts in gateway.calls}
    assert asked == {
        TA.value: ({"analysis_date": "2025-09-30"}, date(2025, 9, 30)),
        FA.value: ({"limit": 5}, date(2025, 9, 30)),  # the date travels beside the options, not among them
        MI.value: ({}, date(2025, 9, 30)),
    }
    [(_, _, context)] = judge.calls
    assert context is not None
    assert context["analysis_date"] == "2025-09-30"
    assert result.analysis_date == date(2025, 9, 30)


async def test_what_research_said_of_a_refused_expert_reaches_the_result() -> None:
    refused = PeerResponseError(
        "research",
        422,
        "insufficient_history",
        "fewer than 60 bars public on 2001-01-05",
        extensions={"earliest_usable_date": "2001-12-20"},
    )
    gateway = FakeExpertGateway({TA.value: refused, MI.value: gateway_error()})
    result = await LangGraphResearchOrchestrator(gateway).run(request(TA, MI, FA))

    by_expert = {item.expert_type: item for item in result.expert_results}
    assert by_expert[TA].error == "research 422 insufficient_history: fewer than 60 bars public on 2001-01-05"
    assert by_expert[TA].failure == ExpertFailure(
        status=422, code="insufficient_history", earliest_usable_date=date(2001, 12, 20)
    )
    assert by_expert[MI].failure is None  # not a problem detail from the research service
    assert by_expert[FA].failure is None  # it succeeded
