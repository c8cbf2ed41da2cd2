"""POST /api/v1/debate/run through the real app (rules engine, or a container of fakes)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from debate_fakes import BULK_SENTINELS, FakeBearAgent, FakeBullAgent, FakeResolutionAgent, raw_research_results
from debate_http import debate_client, rules_settings

from debate.application.services.debate_service import DebateService
from debate.container import DebateContainer
from service_kit.languages import ByLanguage
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from shared_contracts.debate import DebateOutcome
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError

URL = "/api/v1/debate/run"


def _container_failing_with(error: Exception) -> DebateContainer:
    service = DebateService(FakeBullAgent(error=error), FakeBearAgent(), FakeResolutionAgent(), EngineInfo(kind="llm"))
    return DebateContainer(settings=rules_settings(), debate_services=ByLanguage("zh", {"zh": service, "en": service}))


async def test_valid_request_returns_200_with_the_debate_outcome() -> None:
    async with debate_client() as (client, _):
        response = await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})

    assert response.status_code == 200, response.text
    body = response.json()
    outcome = DebateOutcome.model_validate(body)
    assert outcome.symbol == "600519.SH"
    assert outcome.direction in {"BULLISH", "BEARISH", "NEUTRAL"}
    assert 0.0 <= outcome.confidence <= 1.0
    assert outcome.risk_matrix, "the experts' risk warnings make the risk matrix"
    assert outcome.engine.kind == "rules"
    for sentinel in BULK_SENTINELS.values():
        assert sentinel not in response.text


async def test_normalized_summaries_and_coordinator_envelopes_are_accepted() -> None:
    results: dict[str, Any] = {
        "technical_analyst": {"signal": "BULLISH", "confidence": 0.8, "reasoning": "上升趋势", "risk_warning": "超买"},
        "financial_auditor": {"status": "success", "data": raw_research_results()["financial_auditor"]},
        "macro_intelligence": {"status": "failed", "error": "timeout"},
    }
    async with debate_client() as (client, _):
        response = await client.post(URL, json={"symbol": "600519.SH", "expert_results": results})

    assert response.status_code == 200, response.text
    body = response.json()
    cited = {e for p in body["bull_case"]["supporting_arguments"] for e in p["source_experts"]}
    cited |= {e for p in body["bear_case"]["supporting_arguments"] for e in p["source_experts"]}
    assert cited == {"technical_analyst", "financial_auditor"}


@pytest.mark.parametrize(
    "body",
    [
        {"expert_results": {"x": {}}},
        {"symbol": "", "expert_results": {"x": {}}},
        {"symbol": "   ", "expert_results": {"x": {}}},
        {"symbol": None},
    ],
)
async def test_missing_or_blank_symbol_is_400(body: dict[str, Any]) -> None:
    async with debate_client() as (client, _):
        response = await client.post(URL, json=body)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "symbol_required"


@pytest.mark.parametrize(
    "body", [{"symbol": "AAPL"}, {"symbol": "AAPL", "expert_results": {}}, {"symbol": "AAPL", "expert_results": None}]
)
async def test_missing_or_empty_expert_results_is_400(body: dict[str, Any]) -> None:
    async with debate_client() as (client, _):
        response = await client.post(URL, json=body)
    assert response.status_code == 400
    assert response.json()["code"] == "expert_results_empty"


@pytest.mark.parametrize(
    ("expert_results", "code", "expert"),
    [
        ({"technical_analyst": {"signal": "BULLISH"}}, "invalid_expert_result", "technical_analyst"),
        ({"astrologer": {"stars": "aligned"}}, "invalid_expert_result", "astrologer"),
        ({"technical_analyst": "BULLISH"}, "invalid_expert_result", "technical_analyst"),
        (
            {"bad name!": {"signal": "BULLISH", "confidence": 1, "reasoning": "", "risk_warning": ""}},
            "invalid_expert_result",
            "bad name!",
        ),
        (
            {"technical_analyst": {"signal": "MOON", "confidence": 0.5, "reasoning": "", "risk_warning": ""}},
            "unknown_signal",
            "technical_analyst",
        ),
        (
            {"technical_analyst": {"signal": "BULLISH", "confidence": 1.5, "reasoning": "", "risk_warning": ""}},
            "invalid_expert_result",
            "technical_analyst",
        ),
        (
            {"technical_analyst": {"signal": "BULLISH", "confidence": "0.8", "reasoning": "", "risk_warning": ""}},
            "invalid_expert_result",
            "technical_analyst",
        ),
        (
            {"technical_analyst": {"signal": "BULLISH", "confidence": True, "reasoning": "", "risk_warning": ""}},
            "invalid_expert_result",
            "technical_analyst",
        ),
        (
            {"technical_analyst": {"status": "weird", "data": {"signal": "BULLISH", "confidence": 0.5}}},
            "invalid_expert_result",
            "technical_analyst",
        ),
        ({"technical_analyst": {"status": "failed", "error": "x"}}, "no_successful_experts", None),
    ],
)
async def test_unreadable_expert_results_are_400_with_a_clear_code(
    expert_results: dict[str, Any], code: str, expert: str | None
) -> None:
    async with debate_client() as (client, _):
        response = await client.post(URL, json={"symbol": "AAPL", "expert_results": expert_results})
    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["code"] == code
    assert problem.get("expert") == expert


async def test_a_short_summary_is_told_what_a_summary_needs() -> None:
    async with debate_client() as (client, _):
        response = await client.post(
            URL,
            json={"symbol": "AAPL", "expert_results": {"technical_analyst": {"signal": "BULLISH", "confidence": 1}}},
        )
    assert response.json()["code"] == "invalid_expert_result"
    assert "signal, confidence, reasoning, risk_warning" in response.json()["detail"]


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "envelope"])
async def test_results_about_another_symbol_are_400(wrapped: bool) -> None:
    raw = raw_research_results()
    results = {name: {"status": "success", "data": value} if wrapped else value for name, value in raw.items()}
    about = raw["technical_analyst"]["symbol"]
    async with debate_client() as (client, _):
        mismatched = await client.post(URL, json={"symbol": "AAPL", "expert_results": results})
        same = await client.post(URL, json={"symbol": about.lower(), "expert_results": results})
    assert mismatched.status_code == 400
    assert mismatched.json()["code"] == "symbol_mismatch"
    assert mismatched.json()["expert"] in raw
    assert same.status_code == 200, same.text
    assert same.json()["symbol"] == about  # the canonical spelling, whatever the request's


async def test_invalid_symbol_too_many_experts_bad_json_and_unknown_fields_are_400() -> None:
    one = {"signal": "BULLISH", "confidence": 0.5, "reasoning": "r", "risk_warning": ""}
    async with debate_client() as (client, _):
        bad_symbol = await client.post(URL, json={"symbol": "AAPL; drop", "expert_results": {"a": one}})
        too_many = await client.post(URL, json={"symbol": "AAPL", "expert_results": {f"e{i}": one for i in range(11)}})
        bad_json = await client.post(URL, content=b"{not json", headers={"content-type": "application/json"})
        extra = await client.post(URL, json={"symbol": "AAPL", "expert_results": {"a": one}, "rounds": 3})
    assert (bad_symbol.status_code, bad_symbol.json()["code"]) == (400, "invalid_symbol")
    assert (too_many.status_code, too_many.json()["code"]) == (400, "too_many_experts")
    assert (bad_json.status_code, bad_json.json()["code"]) == (400, "malformed_json")
    assert (extra.status_code, extra.json()["code"]) == (400, "invalid_request")


async def test_invalid_input_is_echoed_at_most_200_characters() -> None:
    one = {"signal": "BULLISH", "confidence": 0.5, "reasoning": "r", "risk_warning": ""}
    huge = "A" * 900_000
    async with debate_client() as (client, _):
        symbol = await client.post(URL, json={"symbol": huge, "expert_results": {"a": one}})
        name = await client.post(URL, json={"symbol": "AAPL", "expert_results": {huge: one}})
    for response in (symbol, name):
        assert response.status_code == 400, response.text[:300]
        assert len(response.content) < 1_500
        assert "A" * 201 not in response.text


async def test_llm_output_parse_error_is_500_with_the_error() -> None:
    error = LLMOutputParseError(
        "bull_advocate: the model output is not a JSON object", agent="bull_advocate", raw_output="I refuse"
    )
    async with debate_client(container=_container_failing_with(error)) as (client, _):
        response = await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})
    assert response.status_code == 500
    problem = response.json()
    assert problem["code"] == "llm_output_invalid"
    assert "not a JSON object" in problem["detail"]
    assert problem["agent"] == "bull_advocate"
    assert problem["raw_output_excerpt"] == "I refuse"


async def test_any_other_failure_is_500_without_leaking_internals() -> None:
    async with debate_client(container=_container_failing_with(RuntimeError("secret stack detail"))) as (client, _):
        response = await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    assert "secret" not in response.text


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (LLMUnavailableError("the LLM is unreachable"), 503, "llm_unavailable"),
        (LLMTimeoutError("the LLM did not answer in time"), 504, "llm_timeout"),
        (LLMUpstreamError("the LLM refused the call (401)"), 502, "llm_upstream_error"),
    ],
)
async def test_llm_call_failures_map_to_503_504_502(error: Exception, status: int, code: str) -> None:
    async with debate_client(container=_container_failing_with(error)) as (client, _):
        response = await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})
    assert response.status_code == status
    assert response.json()["code"] == code


async def test_health_readiness_metrics_and_openapi() -> None:
    async with debate_client() as (client, _):
        await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})
        health = await client.get("/healthz")
        ready = await client.get("/readyz")
        metrics = await client.get("/metrics")
        openapi = await client.get("/openapi.json")
    assert health.json() == {"status": "ok", "service": "debate"}
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"debate_service": "ok", "engine_rules": "ok"}
    assert "/api/v1/debate/run" in metrics.text
    assert URL in openapi.json()["paths"]


async def test_failed_experts_and_failed_envelopes_count_as_missing_evidence() -> None:
    results: dict[str, Any] = {
        "technical_analyst": {"signal": "BULLISH", "confidence": 0.8, "reasoning": "上升趋势", "risk_warning": ""},
        "valuation_modeler": {"status": "success", "data": raw_research_results()["valuation_modeler"]},
        "macro_intelligence": {"status": "failed", "error": "timeout"},
    }
    async with debate_client() as (client, _):
        without = await client.post(URL, json={"symbol": "600519.SH", "expert_results": results})
        named = await client.post(
            URL, json={"symbol": "600519.SH", "expert_results": results, "failed_experts": ["catalyst_detective"]}
        )
    assert without.status_code == named.status_code == 200, named.text
    assert without.json()["coverage"]["failed_experts"] == ["macro_intelligence"]
    assert named.json()["coverage"]["failed_experts"] == ["catalyst_detective", "macro_intelligence"]
    assert named.json()["coverage"]["experts_asked"] == 4
    assert named.json()["direction"] == without.json()["direction"]
    assert named.json()["confidence"] <= without.json()["confidence"]
    assert "失败：催化剂侦探、宏观情报员" in named.json()["conflict_resolution"]


async def test_summaries_may_carry_data_gaps_and_staleness_which_set_the_coverage() -> None:
    summary = {"signal": "BULLISH", "confidence": 0.8, "reasoning": "r", "risk_warning": ""}
    gappy = {**summary, "data_gaps": ["no PB", "no PE percentile"], "staleness": ["snapshot 40 days old"]}
    async with debate_client() as (client, _):
        full = await client.post(URL, json={"symbol": "AAPL", "expert_results": {"technical_analyst": summary}})
        thin = await client.post(URL, json={"symbol": "AAPL", "expert_results": {"technical_analyst": gappy}})
        bad = await client.post(
            URL, json={"symbol": "AAPL", "expert_results": {"technical_analyst": {**summary, "data_gaps": "no PB"}}}
        )
    assert full.json()["coverage"]["experts"]["technical_analyst"] == {"coverage": 1.0, "data_gaps": 0, "staleness": 0}
    assert thin.json()["coverage"]["experts"]["technical_analyst"] == {"coverage": 0.6, "data_gaps": 2, "staleness": 1}
    assert (full.json()["confidence"], thin.json()["confidence"]) == (0.8, 0.48)
    assert (bad.status_code, bad.json()["code"], bad.json()["expert"]) == (
        400,
        "invalid_expert_result",
        "technical_analyst",
    )


async def test_a_failed_expert_that_also_answered_or_a_bad_name_is_400() -> None:
    one = {"signal": "BULLISH", "confidence": 0.5, "reasoning": "r", "risk_warning": ""}
    async with debate_client() as (client, _):
        both = await client.post(URL, json={"symbol": "AAPL", "expert_results": {"a": one}, "failed_experts": ["a"]})
        bad_name = await client.post(
            URL, json={"symbol": "AAPL", "expert_results": {"a": one}, "failed_experts": ["not a name"]}
        )
        too_many = await client.post(
            URL, json={"symbol": "AAPL", "expert_results": {"a": one}, "failed_experts": [f"f{i}" for i in range(11)]}
        )
    assert (both.status_code, both.json()["code"], both.json()["expert"]) == (400, "invalid_expert_result", "a")
    assert (bad_name.status_code, bad_name.json()["code"]) == (400, "invalid_expert_result")
    assert (too_many.status_code, too_many.json()["code"]) == (400, "too_many_experts")


CJK = re.compile(r"[\u3400-\u9fff]")


def _own_texts(outcome: dict[str, Any]) -> list[str]:
    """What the debate writes itself (not the experts' evidence it quotes)."""
    return [outcome["bull_case"]["core_thesis"], outcome["bear_case"]["core_thesis"], outcome["conflict_resolution"]]


@pytest.mark.parametrize("configured", ["zh", "en"])
async def test_the_debate_is_written_in_the_requests_language_whatever_the_service_default(configured: str) -> None:
    body = {"symbol": "600519.SH", "expert_results": raw_research_results()}
    async with debate_client(rules_settings(report_language=configured)) as (client, _):
        english = await client.post(URL, json={**body, "language": "en"})
        chinese = await client.post(URL, json={**body, "language": "zh"})
        default = await client.post(URL, json=body)
    assert english.status_code == chinese.status_code == default.status_code == 200
    assert not any(CJK.search(text) for text in _own_texts(english.json()))
    assert all(CJK.search(text) for text in _own_texts(chinese.json()))
    assert (
        default.json()["conflict_resolution"]
        == (english if configured == "en" else chinese).json()["conflict_resolution"]
    )


async def test_a_language_other_than_zh_or_en_is_a_400_invalid_language() -> None:
    body = {"symbol": "600519.SH", "expert_results": raw_research_results(), "language": "ja"}
    async with debate_client() as (client, _):
        one = await client.post(URL, json=body)
        bulk = await client.post(f"{URL}/bulk", json={"items": [body]})
    assert (one.status_code, one.json()["code"]) == (400, "invalid_language")
    assert (bulk.status_code, bulk.json()["code"]) == (400, "invalid_language")
