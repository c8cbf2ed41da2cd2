"""Issue 35: the verdict acts on the stock's standing in its universe; the market view scales exposure only."""

from __future__ import annotations

import pytest
from judge_fakes import make_input

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.exceptions import InvalidJudgeInputError
from judge.domain.model.enums import Action, Direction, TimeHorizon
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from shared_contracts.judge import Verdict

RANKS = [i / 20 for i in range(21)]  # a universe of 21 stocks, rank 0 … 1


def service(language: str = "en") -> JudgeService:
    agent = RulesJudgeAgent(max_position_percent=30.0, language=language)  # type: ignore[arg-type]
    return JudgeService(agent, GuardrailPolicy(max_position_percent=30.0, language=language))  # type: ignore[arg-type]


def standing_input(rank: float, view: str | None = None, coverage: float = 0.8, **more: object) -> JudgeInput:
    score = round(2 * rank - 1, 4)
    side = Direction.BULLISH if rank >= 0.8 else Direction.BEARISH if rank <= 0.2 else Direction.NEUTRAL
    values: dict[str, object] = {
        "direction": side,
        "confidence": abs(score),
        "score": score,
        "universe_rank": rank,
        "standing_coverage": coverage,
        "market_view": view,
        "reference_price": 100.0,
        "atr": 2.0,
        "risk_factors": (),
        "key_disagreements": (),
    }
    return make_input(**(values | more))


@pytest.mark.parametrize(
    ("rank", "action"),
    [(0.95, Action.BUY), (0.8, Action.BUY), (0.5, Action.HOLD), (0.2, Action.SELL), (0.0, Action.SELL)],
)
async def test_the_action_follows_the_universe_rank(rank: float, action: Action) -> None:
    verdict = await service().run(standing_input(rank))
    assert verdict.action is action
    assert verdict.score == round(2 * rank - 1, 4)
    assert verdict.universe_rank == rank
    wire = Verdict.model_validate_json(verdict.model_dump_json())
    assert wire.score == verdict.score
    assert wire.universe_rank == rank


async def test_score_rank_and_action_agree_across_the_universe() -> None:
    verdicts = [await service().run(standing_input(rank)) for rank in RANKS]
    for v in verdicts:
        assert v.score is not None
        assert v.universe_rank is not None
        if v.action is Action.BUY:
            assert v.universe_rank >= 0.8
            assert v.score > 0
        if v.action is Action.SELL:
            assert v.universe_rank <= 0.2
            assert v.score < 0
        if v.action is Action.HOLD:
            assert 0.2 < v.universe_rank < 0.8
            assert v.position_percent == 0.0
    buys = [v for v in verdicts if v.action is Action.BUY]
    assert len(buys) <= 0.6 * len(verdicts)
    # the confidence is the distance from the middle: every trade's is above every hold's
    holds = [v for v in verdicts if v.action is Action.HOLD]
    assert min(v.confidence for v in buys) > max(v.confidence for v in holds)


async def test_thin_evidence_does_not_trade() -> None:
    verdict = await service().run(standing_input(0.95, coverage=0.3))
    assert verdict.action is Action.HOLD
    assert any("coverage" in w for w in verdict.risk_warnings)


async def test_flipping_the_market_view_changes_positions_never_the_scores_order() -> None:
    by_view = {}
    for view in ("FAVORABLE", "NEUTRAL", "UNFAVORABLE"):
        by_view[view] = [await service().run(standing_input(rank, view)) for rank in RANKS]
    good, bad = by_view["FAVORABLE"], by_view["UNFAVORABLE"]
    assert [v.score for v in good] == [v.score for v in bad]
    assert [v.action for v in good] == [v.action for v in bad]
    traded = [(g, b) for g, b in zip(good, bad, strict=True) if g.action is not Action.HOLD]
    assert traded
    for g, b in traded:
        assert g.market_exposure == 1.0
        assert b.market_exposure == 0.6
        assert b.position_percent < g.position_percent
        assert b.position_percent == pytest.approx(policy.scaled(g.position_percent, 0.6), abs=policy.POSITION_STEP)
    assert "scales exposure only" in bad[-1].reasoning


async def test_without_a_market_view_the_exposure_is_full_and_unstated() -> None:
    verdict = await service().run(standing_input(0.95))
    assert verdict.market_exposure is None
    assert verdict.position_percent == 25.0  # 1 % risk / (2 ATR = 4 %) = 25 %
    assert verdict.time_horizon is TimeHorizon.SHORT_TERM
    assert verdict.stop_loss.percent_from_entry == pytest.approx(-4.0)
    assert verdict.take_profit.percent_from_entry >= 8.0


def test_a_rank_without_a_score_or_a_bad_view_is_refused() -> None:
    with pytest.raises(InvalidJudgeInputError):
        make_input(universe_rank=0.5)
    with pytest.raises(InvalidJudgeInputError):
        make_input(score=0.1, market_view="EUPHORIC")
    with pytest.raises(InvalidJudgeInputError):
        make_input(score=1.5)
