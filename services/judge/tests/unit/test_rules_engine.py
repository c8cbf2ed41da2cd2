"""The rules engine: table tests of action and position band, the documented formulas, determinism."""

from __future__ import annotations

import itertools

import pytest
from judge_fakes import PRICED, make_input

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.model.enums import Action, Direction, RiskLevel, TimeHorizon
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from judge.infrastructure.rules.texts import EN, ZH, text
from shared_contracts.enum_words import enum_word
from shared_contracts.judge import KeyLevels

BANDS = {"none": (0.0, 0.0), "small": (0.5, 5.0), "medium": (5.0, 10.0), "large": (10.0, 30.0)}


def agent(language: str = "zh", max_position: float = 30.0) -> RulesJudgeAgent:
    return RulesJudgeAgent(max_position_percent=max_position, language=language)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("direction", "confidence", "action", "band"),
    [
        (Direction.BULLISH, 0.40, Action.HOLD, "none"),
        (Direction.BULLISH, 0.60, Action.BUY, "small"),
        (Direction.BULLISH, 0.85, Action.BUY, "medium"),
        (Direction.BEARISH, 0.40, Action.HOLD, "none"),
        (Direction.BEARISH, 0.60, Action.SELL, "small"),
        (Direction.BEARISH, 0.85, Action.SELL, "medium"),
        (Direction.NEUTRAL, 0.40, Action.HOLD, "none"),
        (Direction.NEUTRAL, 0.85, Action.HOLD, "none"),
    ],
)
async def test_action_and_position_band(direction: Direction, confidence: float, action: Action, band: str) -> None:
    proposal = await agent().decide(make_input(direction=direction, confidence=confidence, **PRICED))
    low, high = BANDS[band]
    assert proposal.action is action
    assert low <= proposal.position_percent <= high
    assert proposal.engine.kind == "rules"


async def test_confident_unopposed_call_gets_a_large_position() -> None:
    proposal = await agent().decide(make_input(confidence=0.95, risk_factors=(), key_disagreements=(), **PRICED))
    assert proposal.position_percent == 11.0  # 1 % × 0.9 × 1.0 at risk ÷ the 8 % stop (4 ATR, LONG_TERM) = 11.25
    low, high = BANDS["large"]
    assert low <= proposal.position_percent <= high


@pytest.mark.parametrize(
    ("confidence", "risks", "expected"),
    [
        (0.60, 0, 6.0),  # 30 × 0.2 × 1.0
        (0.80, 2, 14.0),  # 30 × 0.6 × 0.8 = 14.4 → 14.0
        (0.85, 2, 16.5),  # 30 × 0.7 × 0.8 = 16.8 → 16.5
        (1.00, 7, 15.0),  # 30 × 1.0 × 0.5 (discount capped at 50%)
        (0.61, 5, 3.0),  # 30 × 0.22 × 0.5 = 3.3 → 3.0
    ],
)
def test_position_formula(confidence: float, risks: int, expected: float) -> None:
    assert policy.size_position(Action.BUY, confidence, risks, 30.0) == expected


def test_a_trade_gets_at_least_the_minimum_step() -> None:
    assert policy.size_position(Action.BUY, 0.61, 5, 2.0) == 0.5  # 2 × 0.22 × 0.5 = 0.22 → 0 → 0.5


def test_position_never_exceeds_a_small_maximum() -> None:
    assert policy.size_position(Action.BUY, 0.9, 0, 0.3) == 0.3
    assert policy.size_position(Action.HOLD, 0.9, 0, 30.0) == 0.0


@pytest.mark.parametrize(
    ("risks", "level", "stop", "take"),
    [(0, RiskLevel.LOW, 8.0, 20.0), (1, RiskLevel.LOW, 8.0, 20.0), (2, RiskLevel.MEDIUM, 6.0, 15.0),
     (3, RiskLevel.MEDIUM, 6.0, 15.0), (4, RiskLevel.HIGH, 5.0, 10.0), (9, RiskLevel.HIGH, 5.0, 10.0)],
)  # fmt: skip
async def test_stop_and_take_profit_follow_the_risk_level(
    risks: int, level: RiskLevel, stop: float, take: float
) -> None:
    assert policy.risk_level(risks) is level
    proposal = await agent().decide(make_input(risk_factors=tuple(f"risk {i}" for i in range(risks))))
    assert (proposal.stop_loss.distance_percent, proposal.take_profit.distance_percent) == (stop, take)
    assert enum_word(level.value, "zh") in proposal.stop_loss.basis  # the level in the narrative's word


@pytest.mark.parametrize(
    ("direction", "confidence", "risks", "disagreements", "horizon"),
    [
        (Direction.NEUTRAL, 0.9, 0, 0, TimeHorizon.SHORT_TERM),  # HOLD
        (Direction.BULLISH, 0.9, 0, 3, TimeHorizon.SHORT_TERM),  # contested
        (Direction.BULLISH, 0.9, 4, 0, TimeHorizon.SHORT_TERM),  # HIGH risk
        (Direction.BULLISH, 0.85, 1, 1, TimeHorizon.LONG_TERM),  # strong, LOW risk
        (Direction.BULLISH, 0.75, 1, 0, TimeHorizon.MEDIUM_TERM),  # not strong enough for long
        (Direction.BEARISH, 0.9, 2, 0, TimeHorizon.MEDIUM_TERM),  # MEDIUM risk
    ],
)
async def test_horizon_from_the_signal_mix(
    direction: Direction, confidence: float, risks: int, disagreements: int, horizon: TimeHorizon
) -> None:
    judge_input = make_input(
        direction=direction,
        confidence=confidence,
        risk_factors=tuple(f"r{i}" for i in range(risks)),
        key_disagreements=tuple(f"d{i}" for i in range(disagreements)),
        **PRICED,
    )
    assert (await agent().decide(judge_input)).time_horizon is horizon


async def test_confidence_is_discounted_by_open_disagreements() -> None:
    assert policy.verdict_confidence(0.8, 2) == pytest.approx(0.72)
    assert policy.verdict_confidence(0.8, 7) == pytest.approx(0.64)  # at most 4 × 5 %
    hold = await agent().decide(make_input(direction=Direction.NEUTRAL, confidence=0.8, key_disagreements=("a", "b")))
    assert hold.confidence == pytest.approx(0.72)  # a HOLD reports the discounted debate confidence


async def test_a_trade_reports_its_calibrated_confidence() -> None:
    """BUY/SELL confidence is the in-sample hit rate of calls with that raw score (flat: no information)."""
    strong, weak = [await agent("en").decide(make_input(confidence=c, **PRICED)) for c in (0.9, 0.5)]
    assert strong.action is weak.action is Action.BUY
    assert strong.confidence == weak.confidence == policy.CONFIDENCE_CALIBRATION[-1][1]
    assert "Calibrated confidence 0.38" in strong.reasoning
    knots = policy.CONFIDENCE_CALIBRATION
    assert [y for _, y in knots] == sorted(y for _, y in knots)  # monotone


async def test_without_volatility_a_call_is_a_hold_whose_levels_anchor_on_key_levels() -> None:
    """No volatility measure: nothing to size or stop a trade by, so the bullish call is a HOLD; its levels (for a
    holder) still follow the percentage rules, anchored on support and resistance."""
    judge_input = make_input(
        reference_price=100.0, key_levels=KeyLevels(support=(80.0, 95.0), resistance=(112.0, 130.0))
    )
    proposal = await agent("en").decide(judge_input)
    assert (proposal.action, proposal.position_percent) == (Action.HOLD, 0.0)
    assert "no volatility measure" in proposal.reasoning
    assert "no reference close" not in proposal.reasoning
    assert proposal.stop_loss.distance_percent == pytest.approx(5.95)  # 1 % below support 95
    assert "support 95" in proposal.stop_loss.basis
    assert proposal.take_profit.distance_percent == pytest.approx(12.0)  # resistance 112
    assert "resistance 112" in proposal.take_profit.basis


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("direction", [Direction.BULLISH, Direction.BEARISH])
async def test_no_buy_or_sell_without_a_price_to_act_on(direction: Direction, language: str) -> None:
    """Issue 38: a directional call without a reference close (or without a volatility measure) is a HOLD that
    says why; with both it trades."""
    for missing in ({}, {"reference_price": 100.0}, {"atr": 2.0}, {"realised_volatility_pct": 30.0}):
        proposal = await agent(language).decide(make_input(direction=direction, confidence=0.8, **missing))
        assert (proposal.action, proposal.position_percent) == (Action.HOLD, 0.0), missing
        assert ("没有可执行的价格依据" if language == "zh" else "no price to act on") in proposal.reasoning
        assert proposal.entry_strategy == text(language, "entry_hold_unpriced")  # type: ignore[arg-type]
    traded = await agent(language).decide(make_input(direction=direction, confidence=0.8, **PRICED))
    assert traded.action is (Action.BUY if direction is Direction.BULLISH else Action.SELL)
    assert traded.position_percent > 0


async def test_key_levels_too_close_or_too_far_are_ignored() -> None:
    judge_input = make_input(reference_price=100.0, key_levels=KeyLevels(support=(99.5,), resistance=(101.0,)))
    proposal = await agent().decide(judge_input)
    assert proposal.stop_loss.distance_percent == 6.0  # support 0.5 % away: stop would be 1.5 % < 2 %
    assert proposal.take_profit.distance_percent == 15.0  # resistance 1 % away: reward < risk


async def test_risk_warnings_come_from_the_risk_factors() -> None:
    risks = tuple(f"风险{i}" for i in range(7))
    proposal = await agent().decide(make_input(risk_factors=risks, key_disagreements=("估值分歧",)))
    assert proposal.risk_warnings[:5] == risks[:5]
    assert "另有 2 项风险因素" in proposal.risk_warnings[5]
    assert "估值分歧" in proposal.risk_warnings[6]


async def test_failed_experts_are_named_first_and_counted_as_one_more_risk() -> None:
    """3 of 5 experts without data must not read as a LOW-risk verdict that never mentions them."""
    heard_all = await agent().decide(make_input(risk_factors=("需求放缓",), **PRICED))
    missing = ("financial_auditor", "valuation_modeler", "macro_intelligence")
    partial = await agent().decide(make_input(risk_factors=("需求放缓",), failed_experts=missing, **PRICED))
    assert partial.risk_warnings[0] == (
        "分析不完整：3 位专家失败（财务审计师、估值建模师、宏观情报员），结论只基于其余专家，按一项风险因素计入。"
    )
    assert "风险等级 低" in heard_all.reasoning
    assert "2 项风险因素 → 风险等级 中" in partial.reasoning
    at_stake = [v.position_percent * v.stop_loss.distance_percent for v in (partial, heard_all)]
    assert at_stake[0] < at_stake[1]  # less of the portfolio lost at the stop


async def test_a_thesis_quoted_in_the_reasoning_keeps_one_closing_mark() -> None:
    proposal = await agent().decide(make_input(bull_thesis="多头占优。", conflict_resolution="净分 0.27。"))
    assert "。；" not in proposal.reasoning
    assert "。。" not in proposal.reasoning
    assert "多头论点：多头占优；" in proposal.reasoning


async def test_a_risk_named_twice_counts_once() -> None:
    """Counted four times it made a HIGH risk level of one risk, listed once in the warnings."""
    proposal = await agent("en").decide(
        make_input(risk_factors=("same", "same ", "same", "other"), key_disagreements=(), **PRICED)
    )
    assert [w for w in proposal.risk_warnings if w in ("same", "other")] == ["same", "other"]
    assert "2 risk factors → MEDIUM risk level" in proposal.reasoning


async def test_no_named_risk_is_itself_a_warning() -> None:
    proposal = await agent("en").decide(make_input(risk_factors=(" ",)))
    assert any("named no risk factors" in w for w in proposal.risk_warnings)


async def test_reasoning_cites_its_inputs_and_arithmetic_in_chinese_by_default() -> None:
    proposal = await agent().decide(make_input(confidence=0.8, **PRICED))
    reasoning = proposal.reasoning
    for fragment in (
        "看多",
        "0.80",
        "买入",
        "6.5%",
        "风险等级 中",
        "估值低于内在价值",
        "行业景气度下行",
        "多头略占优",
    ):
        assert fragment in reasoning
    assert "分两批建仓" in proposal.entry_strategy


async def test_english_narrative() -> None:
    proposal = await agent("en").decide(make_input(direction=Direction.NEUTRAL))
    assert proposal.reasoning.startswith("Debate outcome NEUTRAL at confidence 0.80")
    assert proposal.entry_strategy.startswith("Open no new position")


async def test_deterministic() -> None:
    judge_input = make_input(reference_price=42.0, key_levels=KeyLevels(support=(40.0,), resistance=(48.0,)))
    first = await agent().decide(judge_input)
    second = await RulesJudgeAgent(max_position_percent=30.0, language="zh").decide(judge_input)
    assert first == second


async def test_rules_verdicts_never_need_a_guardrail() -> None:
    rules = agent()
    service = JudgeService(rules, GuardrailPolicy())
    grid = itertools.product(Direction, (0.0, 0.3, 0.59, 0.6, 0.75, 0.9, 1.0), (0, 1, 3, 6), (0, 2, 5))
    for direction, confidence, risks, disagreements in grid:
        judge_input = make_input(
            direction=direction,
            confidence=confidence,
            risk_factors=tuple(f"r{i}" for i in range(risks)),
            key_disagreements=tuple(f"d{i}" for i in range(disagreements)),
        )
        verdict = await service.run(judge_input)
        assert verdict.guardrail_adjustments == [], judge_input


async def test_large_prices_are_written_in_full() -> None:
    judge_input = make_input(
        reference_price=123456.78, atr=2469.0, key_levels=KeyLevels(support=(117000.5, 119000.1234))
    )
    proposal = await agent("en").decide(judge_input)
    assert "123456.78" in proposal.entry_strategy
    assert "support 119000.12 " in proposal.stop_loss.basis  # at the reference price's precision


async def test_a_position_below_the_minimum_step_says_the_minimum_applied() -> None:
    """Issue 38: never "rounded down" from 0 % to 0.5 %."""
    proposal = await agent("en").decide(make_input(confidence=0.46, **PRICED))
    assert proposal.action is Action.BUY
    assert proposal.position_percent == 0.5
    assert "stop = 0.00%" in proposal.reasoning
    assert "rounded down to a 0.5% step it would be 0%, so the 0.5% minimum position applies → 0.5%" in (
        proposal.reasoning
    )
    assert "rounded down to a 0.5% step → 0.5%" not in proposal.reasoning


def test_every_text_is_written_in_both_languages() -> None:
    assert ZH.keys() == EN.keys()
