"""The expert-result → ExpertSummary projection: the debate spec's mapping table, written once."""

from __future__ import annotations

from typing import Any

import pytest
from contract_testkit import BULK_FIELDS

from shared_contracts.projection import (
    ExpertDataQuality,
    ExpertSummary,
    ProjectionError,
    data_quality_of_result,
    failed_experts_of,
    project_data_quality,
    project_expert_results,
    summarize_expert_result,
)


def technical() -> dict[str, Any]:
    return {
        "signal": "BULLISH",
        "confidence": 0.78,
        "summary_reasoning": "MA20 above MA60; MACD histogram rising",
        "risk_warning": "RSI 71 is overbought",
        "input": {"prompt": "x" * 1000},
        "output": "raw",
        "technical_indicators": {"rsi_14": 71.2},
        "key_technical_levels": {"support": [1500.0]},
    }


def valuation() -> dict[str, Any]:
    return {
        "valuation_verdict": "UNDERVALUED",
        "confidence_score": 0.6,
        "reasoning_summary": "PE-TTM 19.5 at the 1.7th percentile",
        "risk_factors": ["earnings decline", "policy risk"],
        "valuation_indicators": {"pe_ttm": 19.52},
        "estimated_intrinsic_value_range": {"low": 1300, "high": 1600},
    }


def macro() -> dict[str, Any]:
    return {
        "macro_environment": "NEUTRAL",
        "confidence_score": 0.5,
        "macro_summary": "PMI 49.4 below 50",
        "key_risks": ["deflation", "weak credit"],
        "macro_indicators": {"pmi": 49.4},
        "information_sources": ["NBS"],
    }


def catalyst() -> dict[str, Any]:
    return {
        "result": {
            "catalyst_assessment": "NEGATIVE",
            "confidence_score": 0.55,
            "catalyst_summary": "Earnings turned down",
            "positive_catalysts": [{"title": "Dividend up", "description": "DPS +0.8%"}],
            "negative_catalysts": [
                {"title": "Profit decline", "description": "net profit -4.5% YoY"},
                "52-week low",
            ],
        },
        "raw_llm_output": "{...}",
        "user_prompt": "prompt",
        "catalyst_context": {"events": []},
    }


def financial() -> dict[str, Any]:
    return {
        "signal": "BEARISH",
        "confidence": 0.4,
        "summary_reasoning": "Revenue -1.2% YoY",
        "risk_warning": "Growth stalled",
        "financial_indicators": {"roe": 32.5},
        "dimension_analyses": [{"dimension": "growth"}],
    }


def test_technical_analyst_keeps_four_fields_and_drops_bulk() -> None:
    summary = summarize_expert_result("technical_analyst", technical())
    assert summary == ExpertSummary(
        signal="BULLISH",
        confidence=0.78,
        reasoning="MA20 above MA60; MACD histogram rising",
        risk_warning="RSI 71 is overbought",
    )
    assert set(summary.model_dump()) == {"signal", "confidence", "reasoning", "risk_warning"}


def test_valuation_names_are_normalized_and_risks_joined() -> None:
    summary = summarize_expert_result("valuation_modeler", valuation())
    assert summary is not None
    assert summary.signal == "UNDERVALUED"
    assert summary.confidence == 0.6
    assert summary.reasoning == "PE-TTM 19.5 at the 1.7th percentile"
    assert summary.risk_warning == "earnings decline; policy risk"


def test_macro_key_risks_joined() -> None:
    summary = summarize_expert_result("macro_intelligence", macro())
    assert summary is not None
    assert (summary.signal, summary.confidence, summary.risk_warning) == ("NEUTRAL", 0.5, "deflation; weak credit")


def test_catalyst_nested_result_is_flattened_and_negatives_formatted() -> None:
    summary = summarize_expert_result("catalyst_detective", catalyst())
    assert summary is not None
    assert summary.signal == "NEGATIVE"
    assert summary.confidence == 0.55
    assert summary.reasoning == "Earnings turned down"
    assert summary.risk_warning == "Profit decline: net profit -4.5% YoY; 52-week low"


def test_financial_auditor_mapping() -> None:
    summary = summarize_expert_result("financial_auditor", financial())
    assert summary is not None
    assert (summary.signal, summary.reasoning) == ("BEARISH", "Revenue -1.2% YoY")


def test_failed_experts_are_skipped_in_every_form() -> None:
    results = {
        "technical_analyst": technical(),
        "valuation_modeler": {"status": "success", "data": valuation()},
        "macro_intelligence": macro(),
        "financial_auditor": None,
        "catalyst_detective": {"status": "failed", "error": "research 404 data_unavailable"},
    }
    summaries = project_expert_results(results)
    assert sorted(summaries) == ["macro_intelligence", "technical_analyst", "valuation_modeler"]
    dumped = str({k: v.model_dump() for k, v in summaries.items()})
    for field in BULK_FIELDS:
        assert field not in dumped


def test_idempotent_on_normalized_summaries() -> None:
    first = project_expert_results({"technical_analyst": technical(), "catalyst_detective": catalyst()})
    again = project_expert_results({k: v.model_dump() for k, v in first.items()})
    assert again == first


def test_unknown_expert_with_raw_fields_is_an_error() -> None:
    with pytest.raises(ProjectionError, match="unknown expert"):
        summarize_expert_result("astrologer", {"signal": "BULLISH"})


def test_missing_field_is_named() -> None:
    data = valuation()
    del data["confidence_score"]
    with pytest.raises(ProjectionError, match="confidence_score"):
        summarize_expert_result("valuation_modeler", data)


@pytest.mark.parametrize("confidence", [1.5, -0.1, float("nan")])
def test_confidence_outside_unit_interval_is_rejected(confidence: float) -> None:
    data = technical()
    data["confidence"] = confidence
    with pytest.raises(ProjectionError, match="confidence"):
        summarize_expert_result("technical_analyst", data)


def test_non_object_result_is_an_error() -> None:
    with pytest.raises(ProjectionError, match="must be an object"):
        summarize_expert_result("technical_analyst", ["BULLISH"])


@pytest.mark.parametrize(
    ("word", "stance"),
    [
        ("BULLISH", "BULLISH"),
        ("undervalued", "BULLISH"),
        ("FAIRLY_VALUED", "NEUTRAL"),
        ("UNFAVORABLE", "BEARISH"),
        ("NEGATIVE", "BEARISH"),
        ("POSITIVE", "BULLISH"),
        ("sideways", None),
    ],
)
def test_stance_of_every_vocabulary(word: str, stance: str | None) -> None:
    from shared_contracts.experts import stance_of

    result = stance_of(word)
    assert (result.value if result else None) == stance


def test_data_quality_counts_data_gaps_and_staleness_in_every_form() -> None:
    raw = {**valuation(), "data_gaps": ["no PB", "no PE percentile"], "staleness": ["snapshot 40 days old"]}
    summary_form = {"signal": "BULLISH", "confidence": 0.5, "reasoning": "r", "risk_warning": "", "data_gaps": []}
    results = {
        "valuation_modeler": {"status": "success", "data": raw},
        "technical_analyst": summary_form,
        "macro_intelligence": {"status": "failed", "error": "timeout"},
    }
    assert project_data_quality(results) == {
        "valuation_modeler": ExpertDataQuality(data_gaps=2, staleness=1),
        "technical_analyst": ExpertDataQuality(),
    }
    assert data_quality_of_result("macro_intelligence", None) is None
    with pytest.raises(ProjectionError, match="data_gaps must be a list of strings"):
        data_quality_of_result("valuation_modeler", {**raw, "data_gaps": "no PB"})


def test_failed_experts_are_named_from_envelopes_and_nulls() -> None:
    results = {
        "technical_analyst": technical(),
        "valuation_modeler": {"status": "failed", "error": "timeout"},
        "macro_intelligence": None,
        "catalyst_detective": {"status": "success", "data": catalyst()},
    }
    assert failed_experts_of(results) == ["valuation_modeler", "macro_intelligence"]
