"""What a retry re-runs, decided from the source session alone (``plan_retry``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from coordinator_fakes import debate_outcome, sample_result, verdict
from coordinator_persistence_fakes import make_session

from coordinator.application.services.research_orchestration_service import plan_retry
from coordinator.domain.exceptions import SessionNotRetryableError, SessionRunningError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, StageOutcome

TA, MI, FA = "technical_analyst", "macro_intelligence", "financial_auditor"
OPTIONS = {TA: {"analysis_date": "2026-02-13"}, MI: {}, FA: {"limit": 3}}


def ok(expert: str) -> ExpertOutcome:
    return ExpertOutcome("success", sample_result(expert), None, 10.0, 1)


def failed() -> ExpertOutcome:
    return ExpertOutcome("failed", None, "research 504 peer_timeout", 30000.0, 3)


def source(
    status: SessionStatus,
    outcomes: dict[str, ExpertOutcome],
    *,
    debate: str = "success",
    judge: str = "success",
    skip_debate: bool = False,
) -> ResearchSession:
    s = make_session(experts=[TA, MI, FA], options=OPTIONS, status=status, outcomes=outcomes, skip_debate=skip_debate)
    stage: dict[str, Any] = {"failed": StageOutcome("failed", "boom"), "pending": StageOutcome()}
    skipped = StageOutcome("skipped")
    return replace(
        s,
        debate=skipped if skip_debate else stage.get(debate, StageOutcome("success", data=debate_outcome())),
        judge=skipped if skip_debate else stage.get(judge, StageOutcome("success", data=verdict())),
    )


def test_a_partial_session_reruns_only_its_failed_experts_with_the_original_options() -> None:
    src = source("partial", {TA: ok(TA), MI: failed(), FA: ok(FA)})

    request = plan_retry(src)

    assert request.symbol == src.symbol
    assert request.experts == [ExpertType(TA), ExpertType(MI), ExpertType(FA)]
    assert request.options == OPTIONS
    assert request.carried_results == {TA: sample_result(TA), FA: sample_result(FA)}
    assert request.carried_debate_outcome is None  # debate and judge re-run on the merged results
    assert request.skip_debate is False


def test_a_failed_session_reruns_every_expert() -> None:
    everything_failed = {TA: failed(), MI: failed(), FA: failed()}
    request = plan_retry(source("failed", everything_failed, debate="pending", judge="pending"))
    assert request.carried_results == {}
    assert request.carried_debate_outcome is None


def test_all_experts_ok_but_debate_failed_reruns_debate_and_judge_only() -> None:
    request = plan_retry(source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}, debate="failed", judge="pending"))
    assert set(request.carried_results) == {TA, MI, FA}
    assert request.carried_debate_outcome is None


def test_all_experts_and_debate_ok_but_verdict_failed_reruns_the_judge_only() -> None:
    request = plan_retry(source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}, judge="failed"))
    assert set(request.carried_results) == {TA, MI, FA}
    assert request.carried_debate_outcome == debate_outcome()


def test_an_interrupted_session_reruns_the_experts_that_never_reported() -> None:
    request = plan_retry(source("interrupted", {TA: ok(TA)}, debate="pending", judge="pending"))
    assert request.carried_results == {TA: sample_result(TA)}
    assert request.carried_debate_outcome is None


def test_an_interrupted_session_is_retryable_even_when_every_stage_had_reported() -> None:
    request = plan_retry(source("interrupted", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}))
    assert request.carried_debate_outcome == debate_outcome()


def test_a_completed_session_whose_debate_and_verdict_succeeded_is_not_retryable() -> None:
    with pytest.raises(SessionNotRetryableError) as caught:
        plan_retry(source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}))
    assert caught.value.code == "not_retryable"


def test_a_completed_skip_debate_session_is_not_retryable() -> None:
    with pytest.raises(SessionNotRetryableError):
        plan_retry(source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}, skip_debate=True))


def test_a_partial_skip_debate_session_keeps_skipping_the_debate() -> None:
    request = plan_retry(source("partial", {TA: ok(TA), MI: failed(), FA: ok(FA)}, skip_debate=True))
    assert request.skip_debate is True
    assert set(request.carried_results) == {TA, FA}


def test_a_running_session_is_not_retried() -> None:
    with pytest.raises(SessionRunningError) as caught:
        plan_retry(source("running", {TA: ok(TA)}, debate="pending", judge="pending"))
    assert caught.value.code == "session_running"


@pytest.mark.parametrize(
    ("session", "stages"),
    [
        (lambda: source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}), []),
        (lambda: source("partial", {TA: ok(TA), MI: failed(), FA: ok(FA)}), [MI, "debate", "judge"]),
        (lambda: source("partial", {TA: ok(TA), FA: ok(FA)}), [MI, "debate", "judge"]),  # MI never recorded
        (
            lambda: source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}, debate="failed", judge="pending"),
            ["debate", "judge"],
        ),
        (lambda: source("completed", {TA: ok(TA), MI: ok(MI), FA: ok(FA)}, judge="failed"), ["judge"]),
        (lambda: source("partial", {TA: ok(TA), MI: failed(), FA: ok(FA)}, skip_debate=True), [MI]),
    ],
)
def test_a_session_says_what_a_retry_would_rerun(session: Any, stages: list[str]) -> None:
    src = session()
    assert src.stages_to_retry == stages
    if stages:
        plan_retry(src)  # the plan and the summary agree: something to re-run
    else:
        with pytest.raises(SessionNotRetryableError):
            plan_retry(src)
