"""Evidence-weighted, coverage-aware aggregation (issue 28): neutral experts temper but do not cancel aligned
evidence, failed experts only lower confidence, and an expert with less of its data weighs less."""

from __future__ import annotations

import pytest
from debate_fakes import summary
from pydantic import ValidationError

from debate.application.services.debate_service import DebateService
from debate.domain.dtos.debate_input import DebateInput, ExpertDataQuality, ExpertSummary
from debate.domain.dtos.evidence import MIN_COVERAGE, coverage_of
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from debate.infrastructure.rules.scoring import corroborated, missing_factor
from shared_contracts.debate import DebateOutcome
from shared_contracts.engine import EngineInfo

NEUTRAL_PANEL = {
    "technical_analyst": summary("NEUTRAL", 0.5),
    "macro_intelligence": summary("NEUTRAL", 0.5),
    "catalyst_detective": summary("NEUTRAL", 0.5),
}
PANELS: dict[str, dict[str, ExpertSummary]] = {
    "lone bull": {"valuation_modeler": summary("UNDERVALUED", 0.9)},
    "bull and neutrals": {"valuation_modeler": summary("UNDERVALUED", 0.9), **NEUTRAL_PANEL},
    "mixed": {
        "technical_analyst": summary("BULLISH", 0.72),
        "financial_auditor": summary("BEARISH", 0.6),
        "valuation_modeler": summary("UNDERVALUED", 0.65),
    },
    "bears": {"technical_analyst": summary("BEARISH", 0.8), "financial_auditor": summary("BEARISH", 0.7)},
    "balanced": {"technical_analyst": summary("BULLISH", 0.7), "financial_auditor": summary("BEARISH", 0.7)},
    "all neutral": dict(NEUTRAL_PANEL),
    "near the threshold": {"technical_analyst": summary("BULLISH", 0.21), **NEUTRAL_PANEL},
}


async def _run(
    summaries: dict[str, ExpertSummary],
    *,
    failed: list[str] | None = None,
    quality: dict[str, ExpertDataQuality] | None = None,
) -> DebateOutcome:
    service = DebateService(
        RulesBullAdvocateAgent("en"), RulesBearAdvocateAgent("en"), RulesResolutionAgent("en"), EngineInfo(kind="rules")
    )
    the_input = DebateInput(
        symbol="601318.SH", expert_summaries=summaries, failed_experts=failed or [], data_quality=quality or {}
    )
    return await service.run(the_input)


async def test_asking_more_experts_with_neutral_views_does_not_flip_a_well_supported_call() -> None:
    alone = await _run({"valuation_modeler": summary("UNDERVALUED", 0.9)})
    with_neutrals = await _run({"valuation_modeler": summary("UNDERVALUED", 0.9), **NEUTRAL_PANEL})

    assert (alone.direction, alone.confidence) == ("BULLISH", 0.9)
    assert with_neutrals.direction == "BULLISH"
    # macro does not vote (issue 35): S = 0.9 / (0.9 + 0.15 × 1.0) = 0.857; confidence 0.77
    assert with_neutrals.confidence == 0.77
    assert alone.confidence - with_neutrals.confidence <= 0.2


@pytest.mark.parametrize("panel", list(PANELS))
@pytest.mark.parametrize("failures", [1, 2, 4])
async def test_failed_experts_never_raise_confidence_nor_change_the_direction(panel: str, failures: int) -> None:
    summaries = PANELS[panel]
    failed = [f"failed_expert_{i}" for i in range(failures)]
    before = await _run(summaries)
    after = await _run(summaries, failed=failed)

    assert after.direction == before.direction
    assert after.confidence <= before.confidence
    if before.confidence > 0:
        assert after.confidence < before.confidence


async def test_missing_experts_weigh_no_better_than_answering_neutral_ones() -> None:
    """The old mean shrank with failed experts, so missing data raised conviction; now it lowers it more
    than neutral answers do."""
    bull = {"valuation_modeler": summary("UNDERVALUED", 0.9)}
    four_neutral = await _run({**bull, **{f"n{i}": summary("NEUTRAL", 0.5) for i in range(4)}})
    four_failed = await _run(bull, failed=[f"n{i}" for i in range(4)])

    assert four_failed.direction == four_neutral.direction == "BULLISH"
    assert four_failed.confidence == 0.54  # 0.9 × (1 − 0.5 × 4/5)
    assert four_failed.confidence < four_neutral.confidence


@pytest.mark.parametrize("panel", ["lone bull", "mixed", "bears", "bull and neutrals"])
async def test_less_data_coverage_never_raises_confidence(panel: str) -> None:
    summaries = PANELS[panel]
    full = await _run(summaries)
    gappy = await _run(summaries, quality={name: ExpertDataQuality(data_gaps=3, staleness=1) for name in summaries})
    assert gappy.confidence <= full.confidence
    if full.direction != "NEUTRAL":
        assert gappy.confidence < full.confidence


async def test_a_bull_with_little_data_weighs_less_than_a_bear_with_all_of_it() -> None:
    summaries = {"technical_analyst": summary("BULLISH", 0.7), "financial_auditor": summary("BEARISH", 0.7)}
    outcome = await _run(summaries, quality={"technical_analyst": ExpertDataQuality(data_gaps=2, staleness=1)})
    # w(bull) = 0.7 × 0.6 = 0.42 against w(bear) = 0.7: S = -0.28 / 1.12 = -0.25; C = -0.25 × 0.7 = -0.175
    assert outcome.direction == "NEUTRAL"
    assert "Technical analyst 0.70x0.60" in outcome.conflict_resolution
    assert "data completeness 0.60" in outcome.bull_case.supporting_arguments[0].argument


async def test_the_outcome_states_its_coverage_in_text_and_fields() -> None:
    summaries = {
        "technical_analyst": summary("BULLISH", 0.62),
        "valuation_modeler": summary("UNDERVALUED", 0.74),
        "financial_auditor": summary("BULLISH", 0.53),
    }
    quality = {"valuation_modeler": ExpertDataQuality(data_gaps=3), "financial_auditor": ExpertDataQuality(data_gaps=1)}
    outcome = await _run(summaries, failed=["macro_intelligence", "catalyst_detective"], quality=quality)

    assert (
        "Heard: 3 of 5 experts answered (failed: Macro intelligence, Catalyst detective), 52 % of the evidence"
        in outcome.conflict_resolution
    )
    assert "missing-evidence factor 0.80" in outcome.conflict_resolution
    assert outcome.coverage is not None
    assert outcome.coverage.model_dump() == {
        "experts_asked": 5,
        "experts_answered": 3,
        "failed_experts": ["macro_intelligence", "catalyst_detective"],
        "evidence_share": 0.52,
        "experts": {
            "technical_analyst": {"coverage": 1.0, "data_gaps": 0, "staleness": 0},
            "valuation_modeler": {"coverage": 0.7, "data_gaps": 3, "staleness": 0},
            "financial_auditor": {"coverage": 0.9, "data_gaps": 1, "staleness": 0},
        },
    }


def test_coverage_falls_with_gaps_and_stale_inputs_down_to_a_floor() -> None:
    assert coverage_of(ExpertDataQuality()) == 1.0
    assert coverage_of(ExpertDataQuality(data_gaps=2)) == 0.8
    assert coverage_of(ExpertDataQuality(data_gaps=1, staleness=1)) == 0.7
    assert coverage_of(ExpertDataQuality(data_gaps=9, staleness=3)) == MIN_COVERAGE


def test_corroboration_and_the_missing_factor() -> None:
    assert corroborated([]) == 0.0
    assert corroborated([0.9]) == 0.9
    assert corroborated([0.5, 0.9]) == pytest.approx(0.925)  # 0.9 + 0.5 × 0.5 × 0.1, in any order
    assert missing_factor(5, 0) == 1.0
    assert missing_factor(3, 2) == pytest.approx(0.8)
    assert missing_factor(1, 4) == pytest.approx(0.6)


def test_the_input_refuses_failed_experts_that_answered_or_repeat_and_quality_of_unknown_experts() -> None:
    answered = {"technical_analyst": summary("BULLISH", 0.7)}
    with pytest.raises(ValidationError, match="both a failed expert and one with a result"):
        DebateInput(symbol="AAPL", expert_summaries=answered, failed_experts=["technical_analyst"])
    with pytest.raises(ValidationError, match="twice"):
        DebateInput(symbol="AAPL", expert_summaries=answered, failed_experts=["macro_intelligence"] * 2)
    with pytest.raises(ValidationError, match="must match"):
        DebateInput(symbol="AAPL", expert_summaries=answered, failed_experts=["no spaces"])
    with pytest.raises(ValidationError, match="without a summary"):
        DebateInput(symbol="AAPL", expert_summaries=answered, data_quality={"oracle": ExpertDataQuality()})


def test_the_panel_reads_stance_confidence_coverage_and_failures() -> None:
    the_input = DebateInput(
        symbol="AAPL",
        expert_summaries={
            "valuation_modeler": summary("OVERVALUED", 0.6),
            "macro_intelligence": summary("NEUTRAL", 0.4),
        },
        data_quality={"valuation_modeler": ExpertDataQuality(data_gaps=1, staleness=1)},
        failed_experts=["catalyst_detective"],
    )
    panel = the_input.panel()
    assert panel.experts["valuation_modeler"].stance == "BEARISH"
    assert panel.experts["valuation_modeler"].weight == pytest.approx(0.42)
    assert panel.experts["macro_intelligence"].coverage == 1.0
    assert panel.failed_experts == ["catalyst_detective"]
    assert (panel.asked, panel.evidence_share) == (3, pytest.approx(0.5667, abs=1e-4))
