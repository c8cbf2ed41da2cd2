"""The rules engine: bull from bullish evidence, bear from bearish, a documented evidence-weighted resolution."""

from __future__ import annotations

import pytest
from debate_fakes import debate_input, summary

from debate.application.services.debate_service import DebateService
from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument
from debate.domain.dtos.debate_input import DebateInput, ExpertDataQuality, ExpertSummary
from debate.domain.model.enums import ArgumentStrength
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from debate.infrastructure.rules.texts import Language
from shared_contracts.debate import DebateOutcome
from shared_contracts.engine import EngineInfo


def _service(language: Language = "zh") -> DebateService:
    return DebateService(
        RulesBullAdvocateAgent(language),
        RulesBearAdvocateAgent(language),
        RulesResolutionAgent(language),
        EngineInfo(kind="rules"),
    )


async def _run(language: Language = "zh", **summaries: ExpertSummary) -> DebateOutcome:
    return await _service(language).run(debate_input("600519.SH", **summaries))


async def _run_with(
    summaries: dict[str, ExpertSummary],
    *,
    failed: list[str] | None = None,
    quality: dict[str, ExpertDataQuality] | None = None,
    language: Language = "en",
) -> DebateOutcome:
    the_input = DebateInput(
        symbol="600519.SH", expert_summaries=summaries, failed_experts=failed or [], data_quality=quality or {}
    )
    return await _service(language).run(the_input)


MIXED = {
    "technical_analyst": summary("BULLISH", 0.72, "均线多头排列", "RSI 超买"),
    "financial_auditor": summary("BEARISH", 0.6, "现金流下滑", "现金流恶化"),
    "valuation_modeler": summary("UNDERVALUED", 0.65, "PE 低位", "利率上升; 现金流恶化"),
    "macro_intelligence": summary("NEUTRAL", 0.5, "宏观平稳", ""),
}


async def test_bull_argues_only_from_bullish_experts_strongest_first() -> None:
    bull = await RulesBullAdvocateAgent("zh").advocate(debate_input(**MIXED))
    assert [p.source_experts for p in bull.supporting_arguments] == [["technical_analyst"], ["valuation_modeler"]]
    assert [p.strength for p in bull.supporting_arguments] == [ArgumentStrength.HIGH, ArgumentStrength.MEDIUM]
    assert [p.confidence for p in bull.supporting_arguments] == [0.72, 0.65]
    assert bull.supporting_arguments[0].evidence == "均线多头排列"
    assert "2/4" in bull.core_thesis
    assert "1.37" in bull.core_thesis
    assert bull.considered_experts == list(MIXED)


async def test_bull_concedes_every_experts_risk_merging_the_same_risk() -> None:
    bull = await RulesBullAdvocateAgent("zh").advocate(debate_input(**MIXED))
    claims = {c.risk: c.source_experts for c in bull.acknowledged_risks}
    assert claims == {
        "RSI 超买（技术分析师）": ["technical_analyst"],
        "现金流恶化（财务审计师、估值建模师）": ["financial_auditor", "valuation_modeler"],
        "利率上升（估值建模师）": ["valuation_modeler"],
    }


async def test_bear_argues_only_from_bearish_experts_and_concedes_bullish_views() -> None:
    bear = await RulesBearAdvocateAgent("en").advocate(debate_input(**MIXED))
    assert [p.source_experts for p in bear.supporting_arguments] == [["financial_auditor"]]
    assert bear.supporting_arguments[0].argument == "Financial auditor is bearish (BEARISH), confidence 0.60"
    assert bear.acknowledged_strengths == [
        "Technical analyst is bullish (BULLISH, confidence 0.72): 均线多头排列",
        "Valuation modeler is bullish (UNDERVALUED, confidence 0.65): PE 低位",
    ]


async def test_no_bullish_expert_gives_an_empty_bull_case_that_says_so() -> None:
    bull = await RulesBullAdvocateAgent("en").advocate(debate_input(financial_auditor=summary("BEARISH", 0.6)))
    assert bull.supporting_arguments == []
    assert "none of the 1 experts is bullish" in bull.core_thesis


async def test_unanimous_bulls_corroborate_each_other_above_the_strongest_alone() -> None:
    outcome = await _run(
        technical_analyst=summary("BULLISH", 0.8),
        valuation_modeler=summary("UNDERVALUED", 0.7),
        catalyst_detective=summary("POSITIVE", 0.6),
    )
    # S = 1; P = 0.8 → 0.8 + 0.5·0.7·0.2 = 0.87 → 0.87 + 0.5·0.6·0.13 = 0.909
    assert outcome.direction == "BULLISH"
    assert outcome.confidence == 0.91
    assert outcome.key_disagreements == []


async def test_bears_outweighing_bulls_give_bearish() -> None:
    outcome = await _run(
        technical_analyst=summary("BEARISH", 0.8),
        financial_auditor=summary("BEARISH", 0.7),
        valuation_modeler=summary("UNDERVALUED", 0.4),
    )
    # S = (0.4 - 1.5) / 1.9 = -0.579; P(bear) = 0.8 + 0.5·0.7·0.2 = 0.87; C = -0.504
    assert outcome.direction == "BEARISH"
    assert outcome.confidence == 0.5


async def test_neutral_experts_temper_a_lone_bull_but_do_not_cancel_it() -> None:
    outcome = await _run(
        technical_analyst=summary("BULLISH", 0.9),
        financial_auditor=summary("NEUTRAL", 0.5),
        valuation_modeler=summary("FAIRLY_VALUED", 0.5),
        macro_intelligence=summary("NEUTRAL", 0.5),
        catalyst_detective=summary("NEUTRAL", 0.5),
    )
    # macro does not vote (issue 35): S = 0.9 / (0.9 + 0.15·1.5) = 0.8; P = 0.9; C = 0.72
    assert outcome.direction == "BULLISH"
    assert outcome.confidence == 0.72


async def test_the_threshold_itself_is_directional() -> None:
    outcome = await _run(technical_analyst=summary("BULLISH", 0.2))
    assert outcome.direction == "BULLISH"
    assert outcome.confidence == 0.2
    below = await _run(technical_analyst=summary("BULLISH", 0.19))
    assert below.direction == "NEUTRAL"


async def test_balanced_sides_give_neutral_with_half_confidence_and_name_the_disagreement() -> None:
    outcome = await _run(
        "en", technical_analyst=summary("BULLISH", 0.7, "uptrend"), financial_auditor=summary("BEARISH", 0.7, "debt")
    )
    assert outcome.direction == "NEUTRAL"
    assert outcome.confidence == 0.5
    assert outcome.key_disagreements == [
        'Technical analyst is bullish (0.70) while Financial auditor is bearish (0.70): "uptrend" versus "debt"'
    ]
    assert "neither side prevails" in outcome.conflict_resolution


async def test_risk_matrix_rates_probability_by_belief_and_impact_by_conviction() -> None:
    outcome = await _run(**MIXED)
    rows = {r.risk: (r.probability, r.impact, r.mitigation) for r in outcome.risk_matrix}
    # bearish auditor 0.60 believes it (MEDIUM); the strongest source confidence is 0.65 (MEDIUM)
    assert rows["现金流恶化（财务审计师、估值建模师）"] == (
        "MEDIUM",
        "MEDIUM",
        "跟踪下一期财报的相关指标，恶化即下调仓位",
    )
    # bullish technical analyst 0.72: belief 1 - 0.72 = 0.28 (LOW), conviction 0.72 (HIGH)
    assert rows["RSI 超买（技术分析师）"] == ("LOW", "HIGH", "在关键支撑位下方设置止损，跌破即减仓")
    assert rows["利率上升（估值建模师）"][:2] == ("LOW", "MEDIUM")
    assert outcome.risk_matrix[0].risk == "现金流恶化（财务审计师、估值建模师）"  # most probable first


async def test_conflict_resolution_says_why_the_winner_won_with_the_numbers() -> None:
    outcome = await _run(
        technical_analyst=summary("BULLISH", 0.8),
        valuation_modeler=summary("UNDERVALUED", 0.6),
        financial_auditor=summary("BEARISH", 0.3),
    )
    text = outcome.conflict_resolution
    assert outcome.direction == "BULLISH"
    assert outcome.confidence == 0.56
    assert "多方：技术分析师 0.80、估值建模师 0.60，合计 1.40" in text
    assert "空方：财务审计师 0.30，合计 0.30" in text
    assert "=（1.40 − 0.30）/（1.40 + 0.30 + 0.15 × 0.00）= +0.65" in text
    assert "多方强度（同向专家相互印证）= 0.86；净分 = 力量对比 × 强度 = +0.56" in text
    assert "听取：3/3 位专家给出结果（失败：无），证据占比 100%" in text
    assert "多方胜出" in text
    assert "缺失系数 1.00 = 0.56" in text


async def test_every_argument_and_risk_is_traceable_to_an_input() -> None:
    the_input = debate_input(**MIXED)
    outcome = await _service().run(the_input)
    reasonings = {s.reasoning for s in the_input.expert_summaries.values()}
    risks = {r for s in the_input.expert_summaries.values() for r in s.risk_warning.split("; ") if r}
    for point in [*outcome.bull_case.supporting_arguments, *outcome.bear_case.supporting_arguments]:
        assert point.evidence in reasonings
        assert all(e in the_input.expert_summaries for e in point.source_experts)
    for row in outcome.risk_matrix:
        assert any(row.risk.startswith(r) for r in risks)


async def test_the_rules_engine_is_deterministic_and_order_independent() -> None:
    forward = await _run(**MIXED)
    again = await _run(**MIXED)
    backward = await _run(**dict(reversed(list(MIXED.items()))))
    assert forward == again
    assert (backward.direction, backward.confidence) == (forward.direction, forward.confidence)
    assert backward.bull_case.supporting_arguments == forward.bull_case.supporting_arguments


async def test_report_language_switches_every_narrative() -> None:
    zh = await _run("zh", **MIXED)
    en = await _run("en", **MIXED)
    assert "多头论证" in zh.bull_case.core_thesis
    assert "bull case" in en.bull_case.core_thesis
    assert "净分" in zh.conflict_resolution
    assert "net score" in en.conflict_resolution
    assert en.risk_matrix[0].mitigation.startswith("Track")


async def test_resolution_weighs_arguments_without_confidence_by_strength() -> None:
    def point(expert: str, strength: ArgumentStrength) -> ArgumentPoint:
        return ArgumentPoint(argument="a", evidence="e", source_experts=[expert], strength=strength)

    bull = BullArgument(
        core_thesis="t",
        supporting_arguments=[point("technical_analyst", ArgumentStrength.HIGH)],
        acknowledged_risks=[],
        considered_experts=["technical_analyst", "financial_auditor"],
    )
    bear = BearArgument(
        core_thesis="t",
        supporting_arguments=[point("financial_auditor", ArgumentStrength.LOW)],
        acknowledged_strengths=[],
        considered_experts=["technical_analyst", "financial_auditor"],
    )
    result = await RulesResolutionAgent("en").resolve("AAPL", bull, bear)
    # without a panel the points are the evidence: S = (0.80 - 0.30) / 1.10 = 0.4545; P = 0.80; C = 0.364
    assert result.direction == "BULLISH"
    assert result.confidence == 0.36


@pytest.mark.parametrize("language", ["zh", "en"])
async def test_rules_outcome_is_a_valid_wire_outcome(language: Language) -> None:
    outcome = await _run(language, **MIXED)
    assert DebateOutcome.model_validate(outcome.model_dump(mode="json")) == outcome
    assert outcome.engine == EngineInfo(kind="rules")


async def test_risks_are_counted_alike_whatever_the_language_they_were_written_in() -> None:
    """The research rules join a Chinese expert's risks with '；', an English one's with '; '."""
    zh = await _run("zh", technical_analyst=summary("BULLISH", 0.7, "均线多头", "RSI 超买；跌破支撑；量能萎缩"))
    en_risks = "RSI overbought; support broken; thin volume"
    en = await _run("en", technical_analyst=summary("BULLISH", 0.7, "uptrend", en_risks))
    assert len(zh.bull_case.acknowledged_risks) == len(en.bull_case.acknowledged_risks) == 3
    assert len(zh.risk_matrix) == len(en.risk_matrix) == 3


async def test_the_macro_view_does_not_vote_on_a_stocks_direction() -> None:
    alone = await _run(technical_analyst=summary("NEUTRAL", 0.5))
    for view in ("FAVORABLE", "UNFAVORABLE"):
        outcome = await _run(technical_analyst=summary("NEUTRAL", 0.5), macro_intelligence=summary(view, 0.9))
        assert (outcome.direction, outcome.confidence) == (alone.direction, alone.confidence)
