"""POST /api/v1/coordinator/research through the real app (fake gateways behind the container)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pytest
from contract_testkit import DEBATE_FIELDS, VERDICT_FIELDS
from coordinator_fakes import (
    ALL_EXPERTS,
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    InMemorySessionRepository,
    fake_container,
    research_service,
    sample_result,
    serve,
)

from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.model.progress import ExpertStarted, Progress
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from service_kit.logging import flush_logs

PATH = "/api/v1/coordinator/research"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


async def post(body: Any, **fakes: Any) -> httpx.Response:
    async with serve(fake_container(**fakes)) as client:
        return await client.post(PATH, json=body)


async def test_valid_request_returns_200_with_the_orchestrated_result() -> None:
    response = await post({"symbol": "600519.SH", "experts": ["technical_analyst"]})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "session_id",
        "symbol",
        "analysis_date",
        "language",  # issue 51: the one language of its texts (REPORT_LANGUAGE when the request named none)
        "overall_status",
        "expert_results",
        "debate_outcome",
        "verdict",
        "retry_count",
        "usage",  # issue 41: the model calls of each stage (none here: the fakes report no usage)
    }
    assert body["usage"]["total"]["llm_calls"] == 0
    assert body["symbol"] == "600519.SH"
    assert body["expert_results"]["technical_analyst"] == {
        "status": "success",
        "data": sample_result("technical_analyst"),
        "error": None,
    }


async def test_full_request_is_parsed_and_runs_experts_debate_and_judge() -> None:
    gateway, debate, judge = FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway()
    response = await post(
        {
            "symbol": "000001.SZ",
            "experts": ["technical_analyst", "macro_intelligence"],
            "options": {"technical_analyst": {"analysis_date": "2026-02-13"}},
        },
        gateway=gateway,
        debate=debate,
        judge=judge,
    )
    assert response.status_code == 200
    assert sorted(gateway.calls) == [
        ("macro_intelligence", "000001.SZ", {}),
        ("technical_analyst", "000001.SZ", {"analysis_date": "2026-02-13"}),
    ]
    assert len(debate.calls) == 1
    assert len(judge.calls) == 1
    assert response.json()["verdict"] is not None


async def test_missing_options_use_the_defaults() -> None:
    gateway = FakeExpertGateway()
    response = await post(
        {"symbol": "600519.SH", "experts": ["technical_analyst", "financial_auditor"]}, gateway=gateway
    )
    assert response.status_code == 200
    options = {expert: opts for expert, _, opts in gateway.calls}
    assert options == {
        "technical_analyst": {"analysis_date": date.today().isoformat()},
        "financial_auditor": {"limit": 5},
    }


async def test_response_contains_the_debate_outcome() -> None:
    body = (await post({"symbol": "600519.SH", "experts": ["technical_analyst"]})).json()
    assert set(body["debate_outcome"]) >= DEBATE_FIELDS


async def test_response_contains_the_verdict() -> None:
    body = (await post({"symbol": "600519.SH", "experts": ["technical_analyst"]})).json()
    assert set(body["verdict"]) >= VERDICT_FIELDS


async def test_first_request_has_retry_count_zero() -> None:
    body = (await post({"symbol": "600519.SH", "experts": ["technical_analyst"]})).json()
    assert body["retry_count"] == 0
    assert UUID.match(body["session_id"])


async def test_the_response_has_the_new_session_id() -> None:
    sessions = InMemorySessionRepository()
    response = await post({"symbol": "600519.SH", "experts": ["technical_analyst"]}, sessions=sessions)
    session_id = response.json()["session_id"]
    assert UUID.match(session_id)
    assert sessions.sessions[session_id].status == "completed"
    assert response.json()["retry_count"] == 0


async def test_skip_debate_gives_null_debate_and_verdict() -> None:
    debate, judge = FakeDebateGateway(), FakeJudgeGateway()
    response = await post(
        {"symbol": "600519.SH", "experts": ["technical_analyst", "valuation_modeler"], "skip_debate": True},
        debate=debate,
        judge=judge,
    )
    body = response.json()
    assert response.status_code == 200
    assert body["debate_outcome"] is None
    assert body["verdict"] is None
    assert body["overall_status"] == "completed"
    assert set(body["expert_results"]) == {"technical_analyst", "valuation_modeler"}
    assert debate.calls == []
    assert judge.calls == []


async def test_debate_failure_gives_null_debate_and_verdict_and_keeps_the_rest() -> None:
    response = await post(
        {"symbol": "600519.SH", "experts": ["technical_analyst"]},
        debate=FakeDebateGateway(error=ValueError("debate 502 llm_output_invalid: not JSON")),
    )
    body = response.json()
    assert response.status_code == 200
    assert body["debate_outcome"] is None
    assert body["verdict"] is None
    assert body["overall_status"] == "completed"
    assert body["expert_results"]["technical_analyst"]["status"] == "success"


async def test_judge_failure_gives_null_verdict_and_keeps_the_debate() -> None:
    response = await post(
        {"symbol": "600519.SH", "experts": ["technical_analyst"]},
        judge=FakeJudgeGateway(error=RuntimeError("judge timed out after 90s (1 attempt)")),
    )
    body = response.json()
    assert response.status_code == 200
    assert body["verdict"] is None
    assert set(body["debate_outcome"]) >= DEBATE_FIELDS
    assert body["overall_status"] == "completed"


async def test_all_experts_succeeding_is_completed() -> None:
    body = (await post({"symbol": "600519.SH", "experts": ALL_EXPERTS})).json()
    assert body["overall_status"] == "completed"
    assert {v["status"] for v in body["expert_results"].values()} == {"success"}
    assert set(body["expert_results"]) == set(ALL_EXPERTS)


async def test_some_experts_failing_is_partial_with_200() -> None:
    gateway = FakeExpertGateway(
        failures={"macro_intelligence": RuntimeError("research 504 data_provider_timeout: slow")}
    )
    response = await post(
        {"symbol": "600519.SH", "experts": ["technical_analyst", "macro_intelligence", "valuation_modeler"]},
        gateway=gateway,
    )
    body = response.json()
    assert response.status_code == 200
    assert body["overall_status"] == "partial"
    assert body["expert_results"]["macro_intelligence"] == {
        "status": "failed",
        "data": None,
        "error": "research 504 data_provider_timeout: slow",
    }
    assert body["expert_results"]["technical_analyst"]["data"] == sample_result("technical_analyst")
    assert body["expert_results"]["valuation_modeler"]["status"] == "success"


async def test_only_the_requested_experts_are_called_through_http() -> None:
    gateway = FakeExpertGateway()
    await post({"symbol": "600519.SH", "experts": ["macro_intelligence", "catalyst_detective"]}, gateway=gateway)
    assert sorted(gateway.called) == ["catalyst_detective", "macro_intelligence"]


async def test_every_expert_failing_is_500_with_the_full_body() -> None:
    """Failures on the services' side (the caller's own mistakes are 404/422: test_point_in_time_research.py)."""
    experts = ["technical_analyst", "financial_auditor"]
    gateway = FakeExpertGateway(failures={e: RuntimeError(f"research 503 data_provider_error: {e}") for e in experts})
    response = await post({"symbol": "XYZ", "experts": experts}, gateway=gateway)
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "all_experts_failed"
    assert body["overall_status"] == "failed"
    assert body["symbol"] == "XYZ"
    assert body["debate_outcome"] is None
    assert body["verdict"] is None
    assert body["retry_count"] == 0
    assert {e: v["error"] for e, v in body["expert_results"].items()} == {
        e: f"research 503 data_provider_error: {e}" for e in experts
    }


VALID = {"symbol": "600519.SH", "experts": ["technical_analyst"]}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"experts": ["technical_analyst"]}, "symbol_required"),
        ({"symbol": "", "experts": ["technical_analyst"]}, "symbol_required"),
        ({"symbol": "  ", "experts": ["technical_analyst"]}, "symbol_required"),
        ({"symbol": None, "experts": ["technical_analyst"]}, "symbol_required"),
        ({"symbol": "600519", "experts": ["technical_analyst"]}, "invalid_symbol"),
        ({"symbol": "$$$", "experts": ["technical_analyst"]}, "invalid_symbol"),
        ({"symbol": "600519.SH", "experts": []}, "experts_empty"),
        ({"symbol": "600519.SH"}, "experts_empty"),
        ({"symbol": "600519.SH", "experts": ["unknown_expert"]}, "unknown_expert"),
        ({"symbol": "600519.SH", "experts": ["technical_analyst", "technical_analyst"]}, "duplicate_expert"),
        (VALID | {"options": {"technical_analyst": {"analysis_date": "2026-02-30"}}}, "invalid_options"),
        (VALID | {"options": {"technical_analyst": {"analysis_date": "13/02/2026"}}}, "invalid_options"),
        (VALID | {"options": {"technical_analyst": {"lookback": 30}}}, "invalid_options"),
        (VALID | {"options": {"financial_auditor": {"limit": 5}}}, "invalid_options"),
        (VALID | {"options": {"nobody": {}}}, "invalid_options"),
        (
            {"symbol": "600519.SH", "experts": ["financial_auditor"], "options": {"financial_auditor": {"limit": "5"}}},
            "invalid_options",
        ),
        (
            {"symbol": "600519.SH", "experts": ["financial_auditor"], "options": {"financial_auditor": {"limit": 2.5}}},
            "invalid_options",
        ),
        (
            {"symbol": "600519.SH", "experts": ["financial_auditor"], "options": {"financial_auditor": {"limit": 0}}},
            "invalid_options",
        ),
        (
            {"symbol": "600519.SH", "experts": ["financial_auditor"], "options": {"financial_auditor": {"limit": 99}}},
            "invalid_options",
        ),
        (VALID | {"options": {"technical_analyst": {"analysis_date": 1759190400}}}, "invalid_options"),
        (VALID | {"options": {"technical_analyst": {"analysis_date": "20250930"}}}, "invalid_options"),
        (VALID | {"analysis_date": "2025-02-30"}, "invalid_request"),
        (VALID | {"analysis_date": "30/09/2025"}, "invalid_request"),
        (VALID | {"analysis_date": 20250930}, "invalid_request"),
        (
            VALID | {"analysis_date": "2025-09-30", "options": {"technical_analyst": {"analysis_date": "2025-06-30"}}},
            "conflicting_analysis_date",
        ),
        (VALID | {"unexpected": 1}, "invalid_request"),
        (VALID | {"skip_debate": "yes"}, "invalid_request"),
        (VALID | {"skip_debate": 1}, "invalid_request"),
        ({"symbol": "600519.SH", "experts": "technical_analyst"}, "invalid_request"),
        (["600519.SH"], "invalid_request"),
    ],
)
async def test_client_mistakes_are_400_with_a_distinguishable_code(body: Any, code: str) -> None:
    gateway = FakeExpertGateway()
    response = await post(body, gateway=gateway)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == code
    assert problem["status"] == 400
    assert problem["detail"]
    assert gateway.calls == []


async def test_an_invalid_symbol_is_echoed_at_most_200_characters() -> None:
    response = await post({"symbol": "A" * 900_000, "experts": ["technical_analyst"]})
    assert (response.status_code, response.json()["code"]) == (400, "invalid_symbol")
    assert len(response.content) < 1_500
    assert "A" * 201 not in response.text


async def test_a_long_expert_list_is_answered_briefly() -> None:
    duplicated = await post({"symbol": "600519.SH", "experts": ["technical_analyst"] * 40_000})
    unknown = await post({"symbol": "600519.SH", "experts": [f"astrologer_{i}" for i in range(20_000)]})
    beyond_the_body_cap = await post({"symbol": "600519.SH", "experts": ["technical_analyst"] * 100_000})
    assert beyond_the_body_cap.status_code == 413
    assert beyond_the_body_cap.json()["code"] == "request_too_large"
    assert duplicated.json()["code"] == "duplicate_expert"
    assert duplicated.json()["detail"] == "expert(s) listed more than once: technical_analyst"
    assert unknown.json()["code"] == "unknown_expert"
    assert "'astrologer_4' and 19995 more" in unknown.json()["detail"]
    assert len(unknown.text) < 1_000


async def test_a_body_that_is_not_json_is_400() -> None:
    async with serve(fake_container()) as client:
        response = await client.post(PATH, content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"


async def test_an_unexpected_error_is_500_and_logged(capsys: pytest.CaptureFixture[str]) -> None:
    class Exploding(IResearchOrchestrationPort):
        async def stream(
            self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
        ) -> AsyncIterator[Progress]:
            yield ExpertStarted(request.experts[0].value)
            raise RuntimeError("a bug in the graph")

    container = fake_container()
    container.research_service = research_service(Exploding(), container.sessions)  # type: ignore[arg-type]
    async with serve(container) as client:
        response = await client.post(PATH, json=VALID, headers={"X-Request-ID": "bug-1"})
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    flush_logs()
    logged = capsys.readouterr().err
    lines = [line for line in logged.splitlines() if "unhandled_error" in line]
    assert len(lines) == 1
    assert "a bug in the graph" in lines[0]
    assert '"request_id": "bug-1"' in lines[0]
    assert response.json()["request_id"] == "bug-1"
