"""The response contract of the retry delta spec (coordinator-retry.delta-spec.md, "请求体与响应体契约"),
plus the base spec's session_id scenario — through the real app with the session store enabled, so
each scenario also checks what was stored."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from contract_testkit import DEBATE_FIELDS, VERDICT_FIELDS
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    gateway_error,
)
from coordinator_persistence_fakes import RESEARCH, SESSIONS, AppUnderTest, coordinator_app, retry_path, sqlite_url

TA, FA, VM, MI, CD = (
    "technical_analyst",
    "financial_auditor",
    "valuation_modeler",
    "macro_intelligence",
    "catalyst_detective",
)


@dataclass
class Rig:
    app: AppUnderTest
    research: FakeExpertGateway
    debate: FakeDebateGateway
    judge: FakeJudgeGateway

    async def post(self, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.app.client.post(RESEARCH, json=body)
        assert response.status_code == 200, response.text
        payload: dict[str, Any] = response.json()
        return payload

    async def stored(self, session_id: str) -> dict[str, Any]:
        detail: dict[str, Any] = (await self.app.client.get(f"{SESSIONS}/{session_id}")).json()
        return detail


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    research, debate, judge = FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway()
    async with coordinator_app(sqlite_url(tmp_path), research=research, debate=debate, judge=judge) as app:
        yield Rig(app, research, debate, judge)


async def test_first_request_response_has_retry_count_0(rig: Rig) -> None:
    body = await rig.post({"symbol": "600519.SH", "experts": [TA]})

    assert body["retry_count"] == 0
    assert (await rig.stored(body["session_id"]))["retry_count"] == 0


async def test_response_has_the_new_session_id_as_a_uuid(rig: Rig) -> None:
    first = await rig.post({"symbol": "600519.SH", "experts": [TA]})
    second = await rig.post({"symbol": "600519.SH", "experts": [TA]})

    assert str(uuid.UUID(first["session_id"])) == first["session_id"]
    assert first["session_id"] != second["session_id"]
    assert (await rig.stored(first["session_id"]))["status"] == "completed"


async def test_retry_response_has_the_source_retry_count_plus_1(rig: Rig) -> None:
    rig.research.failures = {MI: gateway_error()}
    first = await rig.post({"symbol": "600519.SH", "experts": [TA, MI]})
    second = (await rig.app.client.post(retry_path(first["session_id"]))).json()  # MI fails again
    rig.research.failures = {}
    third = (await rig.app.client.post(retry_path(second["session_id"]))).json()

    assert (first["retry_count"], second["retry_count"], third["retry_count"]) == (0, 1, 2)
    assert third["overall_status"] == "completed"


async def test_a_request_with_every_field_is_parsed_and_runs_experts_debate_and_judge(rig: Rig) -> None:
    body = await rig.post(
        {
            "symbol": "000001.SZ",
            "experts": ["technical_analyst", "macro_intelligence"],
            "options": {"technical_analyst": {"analysis_date": "2026-02-13"}},
        }
    )

    assert sorted(rig.research.calls) == [
        (MI, "000001.SZ", {}),
        (TA, "000001.SZ", {"analysis_date": "2026-02-13"}),
    ]
    assert len(rig.debate.calls) == 1
    assert len(rig.judge.calls) == 1
    assert (body["symbol"], sorted(body["expert_results"])) == ("000001.SZ", [MI, TA])
    stored = await rig.stored(body["session_id"])
    assert stored["request"]["options"] == {TA: {"analysis_date": "2026-02-13"}, MI: {}}


async def test_missing_options_use_the_defaults(rig: Rig) -> None:
    before = date.today().isoformat()
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, FA]})
    after = date.today().isoformat()

    options = {expert: opts for expert, _, opts in rig.research.calls}
    assert options[TA] is not None
    assert options[TA]["analysis_date"] in {before, after}
    assert options[FA] == {"limit": 5}
    stored = await rig.stored(body["session_id"])
    assert stored["request"]["options"] == options  # what a retry would re-run


async def test_response_contains_the_debate_outcome(rig: Rig) -> None:
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, VM]})

    assert set(body["debate_outcome"]) >= DEBATE_FIELDS
    assert (await rig.stored(body["session_id"]))["debate"]["status"] == "success"


async def test_response_contains_the_verdict(rig: Rig) -> None:
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, VM]})

    assert set(body["verdict"]) >= VERDICT_FIELDS
    assert body["verdict"]["action"] in {"BUY", "SELL", "HOLD"}
    assert (await rig.stored(body["session_id"]))["judge"]["status"] == "success"


async def test_skip_debate_skips_debate_and_judge(rig: Rig) -> None:
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, MI], "skip_debate": True})

    assert (body["debate_outcome"], body["verdict"]) == (None, None)
    assert (body["overall_status"], sorted(body["expert_results"])) == ("completed", [MI, TA])
    assert rig.debate.calls == []
    assert rig.judge.calls == []
    stored = await rig.stored(body["session_id"])
    assert (stored["debate"]["status"], stored["judge"]["status"]) == ("skipped", "skipped")


async def test_a_failed_debate_nulls_debate_outcome_and_verdict_only(rig: Rig) -> None:
    rig.research.failures = {MI: gateway_error()}
    rig.debate.error = gateway_error("debate", "debate 502 llm_output_invalid: not JSON")
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, MI]})

    assert (body["debate_outcome"], body["verdict"]) == (None, None)
    assert body["overall_status"] == "partial"
    assert body["expert_results"][TA]["status"] == "success"
    assert body["expert_results"][MI]["status"] == "failed"
    assert rig.judge.calls == []
    stored = await rig.stored(body["session_id"])
    assert stored["debate"]["status"] == "failed"
    assert "llm_output_invalid" in stored["debate"]["error"]


async def test_a_failed_verdict_after_a_good_debate_nulls_the_verdict_only(rig: Rig) -> None:
    rig.judge.error = gateway_error("judge", "judge 504 peer_timeout")
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, MI]})

    assert set(body["debate_outcome"]) >= DEBATE_FIELDS
    assert body["verdict"] is None
    assert body["overall_status"] == "completed"
    assert {e: r["status"] for e, r in body["expert_results"].items()} == {TA: "success", MI: "success"}
    stored = await rig.stored(body["session_id"])
    assert (stored["judge"]["status"], stored["judge"]["error"]) == ("failed", "judge 504 peer_timeout")


async def test_all_experts_succeeding_is_completed(rig: Rig) -> None:
    experts = [TA, FA, VM, MI, CD]
    body = await rig.post({"symbol": "600519.SH", "experts": experts})

    assert body["overall_status"] == "completed"
    assert {r["status"] for r in body["expert_results"].values()} == {"success"}
    assert sorted(body["expert_results"]) == sorted(experts)
    assert (await rig.stored(body["session_id"]))["status"] == "completed"


async def test_some_experts_failing_is_partial_with_data_and_error(rig: Rig) -> None:
    rig.research.failures = {FA: gateway_error(message="research 404 symbol_not_found: no data")}
    body = await rig.post({"symbol": "600519.SH", "experts": [TA, FA]})

    assert body["overall_status"] == "partial"
    assert body["expert_results"][TA]["status"] == "success"
    assert body["expert_results"][TA]["data"]["signal"] == "BULLISH"
    assert body["expert_results"][FA]["status"] == "failed"
    assert body["expert_results"][FA]["error"] == "research 404 symbol_not_found: no data"
    assert (await rig.stored(body["session_id"]))["status"] == "partial"
