"""JudgeGatewayAdapter: debate_outcome → JudgeInput (mapped and filtered), verdict back as a dict."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import debate_outcome, sample_result, verdict

from coordinator.domain.exceptions import PeerContractError, PeerResponseError
from coordinator.infrastructure.adapters.judge_gateway_adapter import JudgeGatewayAdapter, evidence_horizon
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from shared_contracts.debate import DebateOutcome
from shared_contracts.judge import Verdict

BASE = "http://judge.test"
URL = f"{BASE}/api/v1/judge/verdict"


@pytest.fixture
async def adapter() -> AsyncIterator[JudgeGatewayAdapter]:
    async with httpx.AsyncClient() as client:
        policy = CallPolicy(
            budget_seconds=2.0, backoff_initial_seconds=0, backoff_max_seconds=0, backoff_jitter_seconds=0
        )
        yield JudgeGatewayAdapter(PeerClient("judge", BASE, client, policy))


async def sent_body(adapter: JudgeGatewayAdapter, context: dict[str, Any] | None = None) -> dict[str, Any]:
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=verdict()))
        await adapter.run_verdict("600519.SH", debate_outcome(), context=context)
        body: dict[str, Any] = json.loads(route.calls.last.request.content)
    return body


async def test_posts_judge_input_and_returns_the_verdict_dict(adapter: JudgeGatewayAdapter) -> None:
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=verdict()))
        result = await adapter.run_verdict("600519.SH", debate_outcome())
    assert route.call_count == 1
    assert type(result) is dict
    assert result == Verdict.model_validate(verdict()).model_dump(mode="json")
    assert result["action"] == "BUY"


async def test_the_exact_judge_input(adapter: JudgeGatewayAdapter) -> None:
    assert await sent_body(adapter) == {
        "symbol": "600519.SH",
        "direction": "BULLISH",
        "confidence": 0.7,
        "bull_thesis": "估值低于内在价值",
        "bear_thesis": "行业景气度下行",
        "risk_factors": ["政策风险", "需求风险", "估值风险"],
        "key_disagreements": ["需求是否见底"],
        "conflict_resolution": "多头证据更强",
        "evidence_horizon": "LONG_TERM",  # the bull case's strongest argument is the valuation modeler's
    }


async def test_atr_evidence_horizon_and_value_range_reach_the_judge(adapter: JudgeGatewayAdapter) -> None:
    technical = sample_result("technical_analyst")
    technical["technical_indicators"] |= {"atr14": 31.5, "volatility_60d_pct": 24.8}
    valuation = sample_result("valuation_modeler")
    valuation["estimated_intrinsic_value_range"] = {"low": 1400.0, "high": 1900.0}
    body = await sent_body(
        adapter, {"expert_results": {"technical_analyst": technical, "valuation_modeler": valuation}}
    )
    assert (body["atr"], body["realised_volatility_pct"]) == (31.5, 24.8)
    assert (body["intrinsic_value_low"], body["intrinsic_value_high"]) == (1400.0, 1900.0)
    stale = technical | {"as_of": "2099-01-01"}  # a close not usable on the analysis date: no ATR of its day
    body = await sent_body(adapter, {"expert_results": {"technical_analyst": stale}, "analysis_date": "2025-09-30"})
    assert "atr" not in body


def test_evidence_horizon_follows_the_winning_sides_strongest_argument() -> None:
    def outcome(direction: str, arguments: list[dict[str, object]]) -> DebateOutcome:
        sample = debate_outcome() | {"direction": direction}
        sample["bull_case"]["supporting_arguments"] = [{"argument": "a", "evidence": "e", **a} for a in arguments]
        sample["bear_case"]["supporting_arguments"] = []
        return DebateOutcome.model_validate(sample)

    technical = {"source_experts": ["technical_analyst"], "strength": "MEDIUM"}
    financial = {"source_experts": ["financial_auditor"], "strength": "HIGH"}
    assert evidence_horizon(outcome("BULLISH", [technical, financial])) == "LONG_TERM"
    assert evidence_horizon(outcome("BULLISH", [technical])) == "SHORT_TERM"
    assert evidence_horizon(outcome("NEUTRAL", [financial])) is None
    assert evidence_horizon(outcome("BEARISH", [financial])) is None  # the bear case has no argument


async def test_theses_are_extracted(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter)
    assert body["bull_thesis"] == "估值低于内在价值"
    assert body["bear_thesis"] == "行业景气度下行"


async def test_risk_factors_are_only_the_risk_names(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter)
    assert body["risk_factors"] == ["政策风险", "需求风险", "估值风险"]
    text = json.dumps(body, ensure_ascii=False)
    for dropped in ("probability", "impact", "mitigation", "supporting_arguments", "acknowledged_", "分散"):
        assert dropped not in text


async def test_reference_price_and_key_levels_come_from_the_technical_analyst(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter, {"expert_results": {"technical_analyst": sample_result("technical_analyst")}})
    assert body["reference_price"] == 1580.5
    assert body["reference_date"] == sample_result("technical_analyst")["as_of"]
    assert body["key_levels"] == {"support": [1500.0, 1450.5], "resistance": [1650.0]}


async def test_an_as_of_that_is_no_iso_date_is_not_sent_as_the_reference_date(adapter: JudgeGatewayAdapter) -> None:
    technical = sample_result("technical_analyst") | {"as_of": "yesterday"}
    body = await sent_body(adapter, {"expert_results": {"technical_analyst": technical}})
    assert body["reference_price"] == 1580.5
    assert "reference_date" not in body


def _valuation_close(close: float, as_of: str) -> dict[str, Any]:
    result = sample_result("valuation_modeler")
    return result | {"as_of": as_of, "valuation_indicators": {**result["valuation_indicators"], "close": close}}


async def test_the_technical_analysts_day_prices_the_verdict_even_when_valuation_data_are_newer(
    adapter: JudgeGatewayAdapter,
) -> None:
    """One reference day: a newer valuation close beside the technical levels mixed two days in one verdict. The
    technical analyst's close, day and levels are the research's; the valuation close is not used."""
    results = {
        "technical_analyst": sample_result("technical_analyst") | {"as_of": "2025-09-30"},
        "valuation_modeler": _valuation_close(1291.91, "2025-10-01"),
    }
    body = await sent_body(adapter, {"expert_results": results, "analysis_date": "2025-10-01"})
    assert (body["reference_price"], body["reference_date"]) == (1580.5, "2025-09-30")
    assert body["key_levels"] == {"support": [1500.0, 1450.5], "resistance": [1650.0]}  # of the same day


@pytest.mark.parametrize(("analysis_date", "priced"), [("2025-10-14", True), ("2025-10-15", False)])
async def test_a_close_too_old_for_the_analysis_date_prices_nothing(
    adapter: JudgeGatewayAdapter, analysis_date: str, priced: bool
) -> None:
    """Issue 38: a close more than ten weekdays before the analysis date is no price to act on (the judge holds)."""
    results = {"technical_analyst": sample_result("technical_analyst") | {"as_of": "2025-09-30"}}
    body = await sent_body(adapter, {"expert_results": results, "analysis_date": analysis_date})
    assert ("reference_price" in body) is priced


async def test_a_close_after_the_analysis_date_is_not_the_reference(adapter: JudgeGatewayAdapter) -> None:
    results = {
        "technical_analyst": sample_result("technical_analyst") | {"as_of": "2022-06-01"},
        "valuation_modeler": _valuation_close(1291.91, "2026-06-13"),
    }
    body = await sent_body(adapter, {"expert_results": results, "analysis_date": "2022-06-01"})
    assert (body["reference_price"], body["reference_date"]) == (1580.5, "2022-06-01")
    assert body["key_levels"] == {"support": [1500.0, 1450.5], "resistance": [1650.0]}  # the same day's


async def test_without_a_usable_technical_close_the_valuation_close_of_its_own_day_is_the_reference(
    adapter: JudgeGatewayAdapter,
) -> None:
    """A technical close dated after the analysis date (a research that ignored the date) is not used, and
    neither are its levels; the valuation modeler's close on or before the date is, alone."""
    results = {
        "technical_analyst": sample_result("technical_analyst") | {"as_of": "2025-09-30"},
        "valuation_modeler": _valuation_close(1402.0, "2025-06-30"),
    }
    body = await sent_body(adapter, {"expert_results": results, "analysis_date": "2025-07-01"})
    assert (body["reference_price"], body["reference_date"]) == (1402.0, "2025-06-30")
    assert "key_levels" not in body


async def test_a_valuation_close_after_the_analysis_date_is_no_reference_either(adapter: JudgeGatewayAdapter) -> None:
    results = {"valuation_modeler": _valuation_close(1291.91, "2026-06-13")}
    body = await sent_body(adapter, {"expert_results": results, "analysis_date": "2025-09-30"})
    assert "reference_price" not in body
    assert "reference_date" not in body


async def test_the_valuation_close_alone_is_a_reference_without_key_levels(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter, {"expert_results": {"valuation_modeler": _valuation_close(50.03, "2026-06-18")}})
    assert (body["reference_price"], body["reference_date"]) == (50.03, "2026-06-18")
    assert "key_levels" not in body


async def test_the_experts_that_failed_are_named_to_the_judge(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter, {"expert_results": {}, "failed_experts": ["valuation_modeler"]})
    assert body["failed_experts"] == ["valuation_modeler"]


async def test_without_the_technical_analyst_no_price_context_is_sent(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter, {"expert_results": {"macro_intelligence": sample_result("macro_intelligence")}})
    assert "reference_price" not in body
    assert "key_levels" not in body


async def test_a_debate_outcome_without_a_thesis_is_a_clear_error(adapter: JudgeGatewayAdapter) -> None:
    broken = debate_outcome()
    del broken["bear_case"]
    with pytest.raises(PeerContractError, match=r"the debate outcome breaks its contract \(bear_case: Field required"):
        await adapter.run_verdict("600519.SH", broken)


async def test_a_judge_problem_becomes_a_readable_error(adapter: JudgeGatewayAdapter) -> None:
    problem = {"title": "Bad Gateway", "status": 502, "detail": "model answered prose", "code": "llm_output_invalid"}
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(502, json=problem))
        with pytest.raises(PeerResponseError, match=r"^judge 502 llm_output_invalid: model answered prose$"):
            await adapter.run_verdict("600519.SH", debate_outcome())
    assert route.call_count == 3  # 502 is transient: retried


async def test_the_standing_and_the_market_view_reach_the_judge(adapter: JudgeGatewayAdapter) -> None:
    outcome = debate_outcome() | {"score": 0.42, "universe_rank": 0.91, "standing_coverage": 0.8}
    macro = sample_result("macro_intelligence") | {"macro_environment": "UNFAVORABLE"}
    with respx.mock:
        route = respx.post(URL).mock(return_value=httpx.Response(200, json=verdict()))
        await adapter.run_verdict("600519.SH", outcome, context={"expert_results": {"macro_intelligence": macro}})
        body: dict[str, Any] = json.loads(route.calls.last.request.content)
    assert (body["score"], body["universe_rank"], body["standing_coverage"]) == (0.42, 0.91, 0.8)
    assert body["market_view"] == "UNFAVORABLE"


async def test_without_a_standing_no_score_is_sent(adapter: JudgeGatewayAdapter) -> None:
    body = await sent_body(adapter)
    assert "score" not in body
    assert "universe_rank" not in body
