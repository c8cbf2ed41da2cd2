"""Every expert × every snapshot symbol with the rules engine: a schema-valid, deterministic result,
or the documented clear error for the snapshot's known gaps."""

from __future__ import annotations

import re
from datetime import date

import pytest
from pydantic import BaseModel

from research.application.dtos.catalyst_detective_agent_result import CatalystDetectiveAgentResult
from research.container import ResearchContainer, build_container
from research.domain.model.market_data import PriceHistory
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.settings import Settings
from shared_contracts.errors import DataUnavailableError, InvalidLanguageError
from shared_contracts.experts import ExpertType
from shared_contracts.projection import ExpertSummary, summarize_expert_result
from shared_contracts.research import (
    CatalystDetectiveResult,
    FinancialAuditorResult,
    MacroIntelligenceResult,
    TechnicalAnalystResult,
    ValuationModelerResult,
)

SYMBOLS = ["000001.SZ", "300750.SZ", "600519.SH", "601318.SH", "AAPL", "MSFT"]
RESULT_MODELS: dict[ExpertType, type[BaseModel]] = {
    ExpertType.TECHNICAL_ANALYST: TechnicalAnalystResult,
    ExpertType.FINANCIAL_AUDITOR: FinancialAuditorResult,
    ExpertType.VALUATION_MODELER: ValuationModelerResult,
    ExpertType.MACRO_INTELLIGENCE: MacroIntelligenceResult,
    ExpertType.CATALYST_DETECTIVE: CatalystDetectiveResult,
}
# The snapshot's gaps (SOURCES.md): no valuation for 000001.SZ, no financials/valuation for US symbols,
# China macro only.
EXPECTED_GAPS = {
    (ExpertType.VALUATION_MODELER, "000001.SZ"),
    (ExpertType.FINANCIAL_AUDITOR, "AAPL"),
    (ExpertType.FINANCIAL_AUDITOR, "MSFT"),
    (ExpertType.VALUATION_MODELER, "AAPL"),
    (ExpertType.VALUATION_MODELER, "MSFT"),
    (ExpertType.MACRO_INTELLIGENCE, "AAPL"),
    (ExpertType.MACRO_INTELLIGENCE, "MSFT"),
}
CJK = re.compile(r"[\u4e00-\u9fff]")


class SnapshotWithoutBars(OfflineSnapshotProvider):
    """The shipped snapshot with its bars hidden: the valuation modeler must use its valuation snapshots."""

    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        raise DataUnavailableError(f"no bars for {symbol} in this test")


def rules_container(snapshot: OfflineSnapshotProvider, language: str = "zh") -> ResearchContainer:
    settings = Settings(_env_file=None, analysis_engine="rules", report_language=language)  # type: ignore[call-arg]
    return build_container(settings, provider=snapshot)


@pytest.mark.parametrize("symbol", SYMBOLS)
@pytest.mark.parametrize("expert", list(ExpertType))
async def test_expert_on_symbol(expert: ExpertType, symbol: str, snapshot: OfflineSnapshotProvider) -> None:
    container = rules_container(snapshot)
    if (expert, symbol) in EXPECTED_GAPS:
        with pytest.raises(DataUnavailableError) as err:
            await container.experts.run(expert.value, symbol)
        assert err.value.code == "data_unavailable"
        return
    first = await container.experts.run(expert.value, symbol)
    second = await rules_container(snapshot).experts.run(expert.value, symbol)
    assert first == second  # deterministic across runs and containers
    model = RESULT_MODELS[expert].model_validate(first)
    assert model.model_dump(mode="json")["engine"] == {"kind": "rules", "model": None, "fallback_reason": None}
    assert first["symbol"] == symbol
    assert first["data_source"] == "offline-snapshot"
    date.fromisoformat(first["as_of"])
    summary = summarize_expert_result(expert.value, first)
    assert isinstance(summary, ExpertSummary)
    assert summary.reasoning
    assert CJK.search(summary.reasoning)


async def test_english_reports_and_cited_numbers(snapshot: OfflineSnapshotProvider) -> None:
    result = await rules_container(snapshot, "en").experts.technical.run("600519.SH", date(2025, 9, 30))
    assert not CJK.search(result["summary_reasoning"] + result["risk_warning"])
    assert "1,443.99" in result["summary_reasoning"]  # the close it used
    assert result["as_of"] == "2025-09-30"
    rules = result["output"]["rules"]
    assert [r["rule"] for r in rules] == [
        "close_vs_ma20",
        "ma20_vs_ma60",
        "macd_histogram",
        "rsi14",
        "bollinger_percent_b",
        "volume_confirmation",
    ]
    assert result["input"]["close"] == 1443.99


async def test_catalyst_service_returns_the_agent_result_model(snapshot: OfflineSnapshotProvider) -> None:
    result = await rules_container(snapshot, "en").experts.catalyst.run("600519.SH")
    assert isinstance(result, CatalystDetectiveAgentResult)
    assert result.raw_llm_output is None
    assert result.user_prompt is None
    assert result.catalyst_context["inputs"] == ["bars", "financials"]
    assert "no news from offline-snapshot" in result.data_gaps
    kinds = {e["kind"] for e in result.catalyst_context["events"]}
    assert "earnings_inflection" in kinds  # FY2025 net profit -4.53 % after +15.38 %
    assert result.result.catalyst_assessment.value == "NEGATIVE"


async def test_financial_auditor_limit_and_gaps(snapshot: OfflineSnapshotProvider) -> None:
    result = await rules_container(snapshot, "en").experts.financial.run("600519.SH", limit=3)
    assert [p["period_end"] for p in result["financial_indicators"]["periods"]] == [
        "2023-12-31",
        "2024-12-31",
        "2025-12-31",
    ]
    assert "no operating cash flow for 2025" in result["data_gaps"]
    dims = {d["dimension"]: d for d in result["dimension_analyses"]}
    assert set(dims) == {"growth", "profitability", "cash_flow", "leverage", "shareholder_return"}
    assert dims["profitability"]["figures"]["roe_pct"] == 32.53
    assert dims["profitability"]["assessment"] == "POSITIVE"  # ROE ≥ 15 %


async def test_bank_leverage_is_not_scored(snapshot: OfflineSnapshotProvider) -> None:
    result = await rules_container(snapshot).experts.financial.run("000001.SZ")
    dims = {d["dimension"]: d["assessment"] for d in result["dimension_analyses"]}
    assert dims["leverage"] == "NOT_ASSESSED"
    assert dims["cash_flow"] == "NOT_ASSESSED"


async def test_valuation_states_its_assumptions() -> None:
    result = await rules_container(SnapshotWithoutBars()).experts.valuation.run("600519.SH")
    iv = result["estimated_intrinsic_value_range"]
    assert iv["method"] == "earnings_power_value"
    assert iv["assumptions"]["equity_risk_premium_pct"] == [3.0, 5.0]
    assert result["valuation_indicators"]["pe_ttm"] == 19.52
    assert result["valuation_verdict"] == "UNDERVALUED"  # percentile 1.7, spread 3.4 pts, yield 4 % > 1.72 %


async def test_an_analysis_date_past_the_last_bar_is_named_as_staleness(snapshot: OfflineSnapshotProvider) -> None:
    container = rules_container(snapshot, "en")
    recent = await container.experts.run("technical_analyst", "600519.SH", {"analysis_date": "2025-09-30"})
    after_a_holiday = await container.experts.run("technical_analyst", "600519.SH", {"analysis_date": "2025-10-08"})
    stale = await container.experts.run("technical_analyst", "600519.SH", {"analysis_date": "2026-11-21"})
    assert recent["staleness"] == after_a_holiday["staleness"] == []
    assert stale["as_of"] == "2025-09-30"
    assert stale["analysis_date"] == "2026-11-21"
    assert stale["inputs_as_of"] == {"bars": "2025-09-30"}
    assert stale["staleness"] == [
        "the latest bar is 2025-09-30, 298 weekdays before the analysis date 2026-11-21: "
        "offline-snapshot has nothing newer"
    ]


async def test_no_analysis_date_analyses_as_of_today_and_names_the_gap(snapshot: OfflineSnapshotProvider) -> None:
    """The spec's default is today (默认当天), for a direct call to the research service as for the coordinator."""
    settings = Settings(_env_file=None, analysis_engine="rules", report_language="en")  # type: ignore[call-arg]
    container = build_container(settings, provider=snapshot, today=lambda: date(2026, 11, 21))
    result = await container.experts.run("technical_analyst", "600519.SH")
    assert result["as_of"] == "2025-09-30"
    assert result["analysis_date"] == "2026-11-21"
    assert any("298 weekdays before the analysis date 2026-11-21" in note for note in result["staleness"])


async def test_disagreeing_dividend_sources_are_a_data_gap_not_a_risk() -> None:
    """Issue 28: a data caveat is stated in ``data_gaps`` only, never counted as an investment risk."""
    container = rules_container(SnapshotWithoutBars(), "en")
    agreeing = await container.experts.run("valuation_modeler", "600519.SH")  # 4.0 % in both sources
    disagreeing = await container.experts.run("valuation_modeler", "601318.SH")
    assert not any("dividend" in gap for gap in agreeing["data_gaps"])
    [gap] = [g for g in disagreeing["data_gaps"] if "dividend" in g]
    assert gap.startswith("dividend yield sources disagree: ")
    assert "{" not in gap  # named source by source, not a Python dict
    assert not any("dividend" in risk for risk in agreeing["risk_factors"] + disagreeing["risk_factors"])


async def test_todays_valuation_is_priced_on_the_research_close_not_a_later_snapshot(
    snapshot: OfflineSnapshotProvider,
) -> None:
    """Issue 26: the snapshots (2026-06) are newer than the last bar (2025-09-30); every price the valuation
    quotes is still the verdict's reference close, the technical analyst's."""
    container = rules_container(snapshot, "en")
    valuation = await container.experts.run("valuation_modeler", "600519.SH", None, date(2026, 11, 25))
    technical = await container.experts.run("technical_analyst", "600519.SH", None, date(2026, 11, 25))
    assert valuation["as_of"] == technical["as_of"] == "2025-09-30"
    assert valuation["valuation_indicators"]["close"] == technical["technical_indicators"]["close"]
    assert "2026-06" not in str(valuation["reasoning_summary"]) + str(valuation["risk_factors"])


CJK = re.compile(r"[\u3400-\u9fff]")


async def test_the_data_notes_follow_the_language_asked_for(snapshot: OfflineSnapshotProvider) -> None:
    """Data gaps and staleness are written in the research's language, whatever REPORT_LANGUAGE is."""
    container = rules_container(snapshot, "en")
    on = date(2026, 11, 20)  # past the last bar: stale; the offline snapshot has no news: a gap
    for language in ("zh", "en"):
        result = (await container.dispatchers(language).catalyst.run("600519.SH", analysis_date=on)).model_dump()
        notes = [*result["data_gaps"], *result["staleness"]]
        assert notes
        assert all(bool(CJK.search(note)) is (language == "zh") for note in notes), notes
    with pytest.raises(InvalidLanguageError):
        container.dispatchers("fr")
