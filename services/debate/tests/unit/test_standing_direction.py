"""Issue 35: with the stock's composite standing, the debate's direction follows the stock's rank in its
universe; the market-wide (macro) view cannot move it."""

from __future__ import annotations

import pytest
from debate_fakes import summary

from debate.application.services.debate_service import DebateService
from debate.domain.dtos.debate_input import DebateInput
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from shared_contracts.engine import EngineInfo
from shared_contracts.standing import CompositeStanding


def rules_service(language: str = "en") -> DebateService:
    return DebateService(
        RulesBullAdvocateAgent(language),  # type: ignore[arg-type]
        RulesBearAdvocateAgent(language),  # type: ignore[arg-type]
        RulesResolutionAgent(language),  # type: ignore[arg-type]
        EngineInfo(kind="rules"),
        language=language,
    )


def standing(score: float, rank: float | None, coverage: float = 0.8) -> CompositeStanding:
    return CompositeStanding(
        score=score, universe_rank=rank, coverage=coverage, factors_used=["return_1m"], universe_scored=100
    )


def with_macro(view: str, composite: CompositeStanding | None) -> DebateInput:
    return DebateInput(
        symbol="600519.SH",
        expert_summaries={
            "technical_analyst": summary("BEARISH", 0.6),
            "macro_intelligence": summary(view, 0.9),
        },
        composite=composite,
    )


@pytest.mark.parametrize(
    ("score", "rank", "coverage", "direction", "confidence"),
    [
        (0.6, 0.9, 0.8, "BULLISH", 0.8),
        (-0.5, 0.1, 0.8, "BEARISH", 0.8),
        (0.1, 0.55, 0.8, "NEUTRAL", 0.1),
        (0.7, 0.95, 0.3, "NEUTRAL", 0.9),  # too little evidence for a side
        (0.4, None, 0.8, "BULLISH", 0.4),  # no rank: the score against ±0.35
    ],
)
async def test_the_direction_follows_the_standing(
    score: float, rank: float | None, coverage: float, direction: str, confidence: float
) -> None:
    outcome = await rules_service().run(with_macro("FAVORABLE", standing(score, rank, coverage)))
    assert outcome.direction == direction
    assert outcome.confidence == pytest.approx(confidence)
    assert outcome.score == score
    assert outcome.universe_rank == rank
    assert "reference universe" in outcome.conflict_resolution


async def test_flipping_the_macro_view_moves_neither_direction_nor_score() -> None:
    for composite in (standing(0.6, 0.9), standing(-0.5, 0.1), standing(0.0, 0.5)):
        favorable = await rules_service().run(with_macro("FAVORABLE", composite))
        unfavorable = await rules_service().run(with_macro("UNFAVORABLE", composite))
        assert favorable.direction == unfavorable.direction
        assert (favorable.score, favorable.universe_rank) == (unfavorable.score, unfavorable.universe_rank)


async def test_without_a_standing_the_outcome_has_no_score() -> None:
    outcome = await rules_service().run(with_macro("FAVORABLE", None))
    assert outcome.score is None
    assert "score" not in outcome.model_dump(mode="json")
