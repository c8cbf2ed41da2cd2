"""POST /api/v1/coordinator/research/{session_id}/retry through the real app (LangGraph orchestrator,
SQLite store), with fake research/debate/judge peers that record every call."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    debate_outcome,
    gateway_error,
    sample_result,
    verdict,
)
from coordinator_persistence_fakes import (
    RESEARCH,
    SESSIONS,
    AppUnderTest,
    GatedExpertGateway,
    coordinator_app,
    make_session,
    retry_path,
    sqlite_url,
)

from coordinator.domain.model.session import ExpertOutcome

TA, FA, VM, MI = "technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence"
BODY = {"symbol": "600519.SH", "experts": [TA, FA, VM, MI], "options": {TA: {"analysis_date": "2026-02-13"}}}


@pytest.fixture
def research() -> FakeExpertGateway:
    return FakeExpertGateway({FA: gateway_error(), MI: gateway_error(message="research 504 peer_timeout")})


@pytest.fixture
def debate() -> FakeDebateGateway:
    return FakeDebateGateway()


@pytest.fixture
def judge() -> FakeJudgeGateway:
    return FakeJudgeGateway()


@pytest.fixture
async def app(
    tmp_path: Path, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> AsyncIterator[AppUnderTest]:
    async with coordinator_app(sqlite_url(tmp_path), research=research, debate=debate, judge=judge) as running:
        yield running


async def _first_run(app: AppUnderTest, body: dict[str, Any] = BODY) -> dict[str, Any]:
    response = await app.client.post(RESEARCH, json=body)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


async def test_retrying_a_partial_session_reruns_only_the_failed_experts(
    app: AppUnderTest, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    first = await _first_run(app)
    assert first["overall_status"] == "partial"
    research.calls.clear()
    research.failures = {}

    response = await app.client.post(retry_path(first["session_id"]))

    assert response.status_code == 200, response.text
    body = response.json()
    assert sorted(research.called) == [FA, MI]  # only what failed
    assert body["overall_status"] == "completed"
    assert body["retry_count"] == 1
    assert body["session_id"] != first["session_id"]
    assert uuid.UUID(body["session_id"]).version == 4
    # the successful results are kept as they were, the failed ones now have data
    assert body["expert_results"][TA] == first["expert_results"][TA]
    assert body["expert_results"][VM] == first["expert_results"][VM]
    assert body["expert_results"][FA] == {"status": "success", "data": sample_result(FA), "error": None}
    # debate and judge re-ran, on the merged results of all four experts
    assert len(debate.calls) == 2
    assert len(judge.calls) == 2
    assert set(debate.calls[-1][1]) == {TA, FA, VM, MI}
    assert body["debate_outcome"]["direction"] == "BULLISH"
    assert body["verdict"]["action"] == "BUY"


async def test_a_retry_reruns_with_the_source_sessions_options(app: AppUnderTest, research: FakeExpertGateway) -> None:
    # A session from another day: its technical analysis was for 2025-01-02, not "today".
    source = make_session(
        symbol="600519.SH",
        experts=[TA, FA],
        options={TA: {"analysis_date": "2025-01-02"}, FA: {"limit": 3}},
        status="failed",
        outcomes={TA: ExpertOutcome("failed", error="boom"), FA: ExpertOutcome("failed", error="boom")},
    )
    await app.sessions.create(source)
    research.failures = {}

    body = (await app.client.post(retry_path(source.session_id))).json()

    assert body["overall_status"] == "completed"
    assert sorted((expert, options) for expert, _, options in research.calls) == [
        (FA, {"limit": 3}),
        (TA, {"analysis_date": "2025-01-02"}),
    ]


async def test_the_retry_is_a_new_session_linked_to_its_source(app: AppUnderTest, research: FakeExpertGateway) -> None:
    first = await _first_run(app)
    research.failures = {}
    retry = (await app.client.post(retry_path(first["session_id"]), headers={"X-Request-ID": "retry-req-1"})).json()

    detail = (await app.client.get(f"{SESSIONS}/{retry['session_id']}")).json()
    source = (await app.client.get(f"{SESSIONS}/{first['session_id']}")).json()

    assert (detail["retry_count"], detail["retried_from"], detail["status"]) == (1, first["session_id"], "completed")
    assert detail["request_id"] == "retry-req-1"
    assert detail["request"] == source["request"]
    # carried experts keep their original audit data; the re-run ones have their new outcome
    assert detail["expert_results"][TA] == source["expert_results"][TA]
    assert detail["expert_results"][VM] == source["expert_results"][VM]
    assert detail["expert_results"][FA]["status"] == "success"
    assert detail["expert_results"][FA]["attempts"] == 1
    assert list(detail["expert_results"]) == [TA, FA, VM, MI]
    assert source["status"] == "partial"  # the source is left as it was
    assert source["expert_results"][FA]["status"] == "failed"


async def test_retry_count_increments_along_a_chain_of_retries(app: AppUnderTest, research: FakeExpertGateway) -> None:
    first = await _first_run(app)
    research.failures = {MI: gateway_error()}  # FA recovers, MI still fails
    second = (await app.client.post(retry_path(first["session_id"]))).json()
    research.calls.clear()
    research.failures = {}
    third = (await app.client.post(retry_path(second["session_id"]))).json()

    assert [first["retry_count"], second["retry_count"], third["retry_count"]] == [0, 1, 2]
    assert second["overall_status"] == "partial"
    assert third["overall_status"] == "completed"
    assert research.called == [MI]
    chain = (await app.client.get(f"{SESSIONS}/{third['session_id']}")).json()
    assert chain["retried_from"] == second["session_id"]


async def test_retrying_an_unknown_session_is_404(app: AppUnderTest) -> None:
    response = await app.client.post(retry_path(str(uuid.uuid4())))

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "session_not_found"


async def test_a_completed_session_whose_debate_and_verdict_succeeded_is_409(
    app: AppUnderTest, research: FakeExpertGateway
) -> None:
    research.failures = {}
    first = await _first_run(app)
    assert first["overall_status"] == "completed"
    research.calls.clear()

    response = await app.client.post(retry_path(first["session_id"]))

    assert response.status_code == 409
    assert response.json()["code"] == "not_retryable"
    assert research.calls == []


async def test_a_session_that_was_already_retried_is_409_naming_its_retry(
    app: AppUnderTest, research: FakeExpertGateway
) -> None:
    first = await _first_run(app)
    retry = (await app.client.post(retry_path(first["session_id"]))).json()
    research.calls.clear()

    again = await app.client.post(retry_path(first["session_id"]))

    assert again.status_code == 409
    assert again.json()["code"] == "already_retried"
    assert again.json()["retry_session_id"] == retry["session_id"]
    assert research.calls == []
    # The history says so: nothing left to retry in the source; its retry is named.
    source = (await app.client.get(f"{SESSIONS}/{first['session_id']}")).json()
    assert (source["stages_to_retry"], source["retried_by"]) == ([], retry["session_id"])
    [listed] = [s for s in (await app.client.get(SESSIONS)).json()["items"] if s["session_id"] == first["session_id"]]
    assert (listed["stages_to_retry"], listed["retried_by"]) == ([], retry["session_id"])


async def test_a_running_session_is_409(tmp_path: Path, debate: FakeDebateGateway, judge: FakeJudgeGateway) -> None:
    gated = GatedExpertGateway(FakeExpertGateway())
    async with coordinator_app(sqlite_url(tmp_path), research=gated, debate=debate, judge=judge) as app:
        first = asyncio.create_task(app.client.post(RESEARCH, json=BODY))
        await gated.entered.wait()
        [running] = (await app.client.get(SESSIONS, params={"status": "running"})).json()["items"]

        response = await app.client.post(retry_path(running["session_id"]))
        gated.release.set()
        assert (await first).status_code == 200

    assert response.status_code == 409
    assert response.json()["code"] == "session_running"


async def test_concurrent_retries_of_one_session_do_not_both_run(
    tmp_path: Path, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    inner = FakeExpertGateway({MI: gateway_error()})
    gated = GatedExpertGateway(inner)
    gated.release.set()
    async with coordinator_app(sqlite_url(tmp_path), research=gated, debate=debate, judge=judge) as app:
        first = await _first_run(app)
        inner.calls.clear()
        inner.failures = {}
        gated.entered.clear()
        gated.release.clear()

        winner = asyncio.create_task(app.client.post(retry_path(first["session_id"])))
        await gated.entered.wait()  # the first retry is mid-flight
        loser = await app.client.post(retry_path(first["session_id"]))
        gated.release.set()
        won = await winner

    assert won.status_code == 200
    assert won.json()["retry_count"] == 1
    assert loser.status_code == 409
    assert loser.json()["code"] == "retry_in_progress"
    assert loser.json()["retry_session_id"] == won.json()["session_id"]
    assert inner.called == [MI]  # re-run once, by the winner only


async def test_simultaneous_retries_on_two_coordinator_replicas_yield_one_run(
    tmp_path: Path, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    url = sqlite_url(tmp_path)
    research_a, research_b = FakeExpertGateway({MI: gateway_error()}), FakeExpertGateway()
    async with (
        coordinator_app(url, research=research_a, debate=debate, judge=judge) as replica_a,
        coordinator_app(url, research=research_b, debate=debate, judge=judge) as replica_b,
    ):
        first = await _first_run(replica_a)
        research_a.calls.clear()
        research_a.failures = {}

        answers = await asyncio.gather(
            replica_a.client.post(retry_path(first["session_id"])),
            replica_b.client.post(retry_path(first["session_id"])),
        )

    assert sorted(a.status_code for a in answers) == [200, 409]
    assert len(research_a.calls) + len(research_b.calls) == 1


async def test_when_every_expert_had_succeeded_but_the_debate_failed_only_debate_and_judge_rerun(
    app: AppUnderTest, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    research.failures = {}
    debate.error = gateway_error("debate", "debate 502 llm_output_invalid: not JSON")
    first = await _first_run(app)
    assert (first["overall_status"], first["debate_outcome"], first["verdict"]) == ("completed", None, None)
    research.calls.clear()
    debate.error = None

    body = (await app.client.post(retry_path(first["session_id"]))).json()

    assert research.calls == []
    assert len(debate.calls) == 2
    assert len(judge.calls) == 1
    assert body["debate_outcome"] == debate_outcome("600519.SH")
    assert body["verdict"]["action"] == "BUY"
    assert body["expert_results"] == first["expert_results"]


async def test_when_only_the_verdict_failed_only_the_judge_reruns(
    app: AppUnderTest, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    research.failures = {}
    judge.error = gateway_error("judge", "judge 504 peer_timeout")
    first = await _first_run(app)
    assert first["debate_outcome"] is not None
    assert first["verdict"] is None
    research.calls.clear()
    judge.error = None

    body = (await app.client.post(retry_path(first["session_id"]))).json()

    assert research.calls == []
    assert len(debate.calls) == 1  # the debate is carried, not re-run
    assert len(judge.calls) == 2
    assert judge.calls[-1][1] == first["debate_outcome"]
    assert body["debate_outcome"] == first["debate_outcome"]
    stored = (await app.client.get(f"{SESSIONS}/{body['session_id']}")).json()
    source = (await app.client.get(f"{SESSIONS}/{first['session_id']}")).json()
    assert stored["debate"] == source["debate"]  # carried with the new session, as it was
    assert stored["debate_outcome"] == source["debate_outcome"]
    assert (stored["judge"]["status"], stored["status"]) == ("success", "completed")
    assert body["verdict"]["action"] == verdict("600519.SH")["action"]


async def test_a_skip_debate_session_is_retried_without_debate(
    app: AppUnderTest, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    first = await _first_run(app, {**BODY, "skip_debate": True})
    research.failures = {}

    body = (await app.client.post(retry_path(first["session_id"]))).json()

    assert (body["overall_status"], body["debate_outcome"], body["verdict"]) == ("completed", None, None)
    assert debate.calls == []
    assert judge.calls == []


async def test_a_retry_in_which_every_expert_fails_again_is_500_with_the_full_body(
    app: AppUnderTest, research: FakeExpertGateway
) -> None:
    research.failures = {TA: gateway_error(), FA: gateway_error(), VM: gateway_error(), MI: gateway_error()}
    first = (await app.client.post(RESEARCH, json=BODY)).json()
    assert first["overall_status"] == "failed"

    response = await app.client.post(retry_path(first["session_id"]))

    assert response.status_code == 500
    body = response.json()
    assert (body["code"], body["overall_status"], body["retry_count"]) == ("all_experts_failed", "failed", 1)
    stored = (await app.client.get(f"{SESSIONS}/{body['session_id']}")).json()
    assert (stored["status"], stored["retried_from"]) == ("failed", first["session_id"])


async def test_a_retry_writes_in_its_sources_language(
    app: AppUnderTest, research: FakeExpertGateway, debate: FakeDebateGateway, judge: FakeJudgeGateway
) -> None:
    """Issue 51: the language is kept with the session; the retry asks every stage for it again."""
    first = await _first_run(app, {**BODY, "language": "en"})
    assert first["language"] == "en"
    research.calls.clear()
    research.failures = {}
    debate.asked.clear()
    judge.calls.clear()

    retry = (await app.client.post(retry_path(first["session_id"]))).json()

    assert retry["language"] == "en"
    assert {options.language for _, _, options in research.calls} == {"en"}  # type: ignore[union-attr]
    assert [asked.get("language") for asked in debate.asked] == ["en"]
    assert [(context or {}).get("language") for _, _, context in judge.calls] == ["en"]
    detail = (await app.client.get(f"{SESSIONS}/{retry['session_id']}")).json()
    assert (detail["language"], detail["request"]["language"]) == ("en", "en")
