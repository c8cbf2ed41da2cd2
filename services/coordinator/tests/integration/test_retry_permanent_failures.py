"""An expert the research service refused for good (404 no data / unknown symbol, 422 too little history) is not
offered for retry: the session read says which failures are retryable, a retry asks only those again and carries
the refusals, and a session whose only failures are refusals is a 409 ``not_retryable`` naming them."""

from __future__ import annotations

from pathlib import Path

from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway, gateway_error
from coordinator_persistence_fakes import RESEARCH, SESSIONS, coordinator_app, retry_path, sqlite_url

from coordinator.domain.exceptions import PeerResponseError

TA, FA, VM, MI = "technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence"
BODY = {"symbol": "600519.SH", "experts": [TA, FA, VM, MI], "options": {TA: {"analysis_date": "2026-02-13"}}}


def refused(status: int, code: str) -> PeerResponseError:
    return PeerResponseError("research", status, code, "refused", extensions={"earliest_usable_date": "2021-03-01"})


async def test_a_retry_asks_again_only_the_retryable_failures_and_carries_the_refusals(tmp_path: Path) -> None:
    research = FakeExpertGateway({FA: refused(404, "data_unavailable"), MI: gateway_error()})
    async with coordinator_app(
        sqlite_url(tmp_path), research=research, debate=FakeDebateGateway(), judge=FakeJudgeGateway()
    ) as app:
        first = (await app.client.post(RESEARCH, json=BODY)).json()
        detail = (await app.client.get(f"{SESSIONS}/{first['session_id']}")).json()
        research.failures.pop(MI)
        research.calls.clear()
        retried = await app.client.post(retry_path(first["session_id"]))
        again = await app.client.post(retry_path(retried.json()["session_id"]))
    experts = detail["expert_results"]
    assert experts[FA]["failure"] == {"status": 404, "code": "data_unavailable", "earliest_usable_date": "2021-03-01"}
    assert (experts[FA]["retryable"], experts[MI]["retryable"], experts[TA]["retryable"]) == (False, True, False)
    assert detail["stages_to_retry"] == [MI, "debate", "judge"]
    assert retried.status_code == 200, retried.text
    assert research.called == [MI]  # the refused expert is not asked again
    failed = {e: r for e, r in retried.json()["expert_results"].items() if r["status"] == "failed"}
    assert list(failed) == [FA]
    assert (again.status_code, again.json()["code"]) == (409, "not_retryable")
    assert again.json()["permanent_failures"] == {FA: "data_unavailable"}


async def test_a_session_whose_experts_were_all_refused_for_good_has_nothing_to_retry(tmp_path: Path) -> None:
    research = FakeExpertGateway({TA: refused(422, "insufficient_history"), MI: refused(404, "symbol_not_found")})
    body = {**BODY, "experts": [TA, MI]}
    async with coordinator_app(
        sqlite_url(tmp_path), research=research, debate=FakeDebateGateway(), judge=FakeJudgeGateway()
    ) as app:
        first = await app.client.post(RESEARCH, json=body)
        session_id = first.json()["session_id"]
        detail = (await app.client.get(f"{SESSIONS}/{session_id}")).json()
        calls = len(research.calls)
        retried = await app.client.post(retry_path(session_id), headers={"Prefer": "respond-async"})
    assert first.status_code in (404, 422)  # every expert failed for the caller's mistake
    assert detail["stages_to_retry"] == []
    assert retried.status_code == 409
    assert retried.json()["code"] == "not_retryable"
    assert retried.json()["permanent_failures"] == {TA: "insufficient_history", MI: "symbol_not_found"}
    assert len(research.calls) == calls
