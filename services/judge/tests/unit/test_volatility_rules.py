"""Issue 28: the rules engine in units of volatility (ATR), the risk budget, the evidence horizon, A-shares.

Before, the stop came from the count of named risks (LOW 8 %, MEDIUM 6 %, HIGH 5 %): the most volatile
stock got the tightest stop in ATR and the quietest the widest."""

from __future__ import annotations

import itertools
import math

import pytest
from judge_fakes import PRICED
from judge_fakes import make_input as fake_input

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.model.enums import Action, Direction, TimeHorizon
from judge.domain.model.risk import (
    ATR_PER_DAILY_SIGMA,
    MAX_STOP_ATR,
    MIN_REWARD_RISK,
    MIN_STOP_ATR,
    TRADING_DAYS_PER_YEAR,
    risk_budget_cap,
)
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from shared_contracts.judge import KeyLevels


def make_input(**overrides: object) -> JudgeInput:
    """A trade on 20-day evidence (a 2-ATR stop) unless the test says otherwise: the stop grows with the horizon."""
    overrides.setdefault("evidence_horizon", TimeHorizon.SHORT_TERM)
    return fake_input(**overrides)


def agent(language: str = "zh", max_position: float = 30.0) -> RulesJudgeAgent:
    return RulesJudgeAgent(max_position_percent=max_position, language=language)  # type: ignore[arg-type]


def risks(count: int) -> tuple[str, ...]:
    return tuple(f"risk {i}" for i in range(count))


def stop_in_atr(distance_percent: float, judge_input: JudgeInput) -> float:
    volatility = judge_input.volatility
    assert volatility is not None
    return distance_percent / volatility.atr_percent


# quiet: ATR 1 % and no named risk (old: LOW, 8 % = 8 ATR); volatile: ATR 6 % and five risks (old: HIGH,
# 5 % = 0.83 ATR). The sample: 1.3 ATR for the most volatile, 2.6 ATR for the quietest.
QUIET = {"reference_price": 100.0, "atr": 1.0, "risk_factors": ()}
VOLATILE = {"reference_price": 100.0, "atr": 6.0, "risk_factors": risks(5)}
SAMPLE_QUIET = {"reference_price": 100.0, "atr": 3.0, "risk_factors": ()}  # old 8 % = 2.67 ATR
SAMPLE_VOLATILE = {"reference_price": 100.0, "atr": 3.85, "risk_factors": risks(4)}  # old 5 % = 1.3 ATR


@pytest.mark.parametrize("case", [QUIET, VOLATILE, SAMPLE_QUIET, SAMPLE_VOLATILE], ids=["quiet", "volatile", "q", "v"])
@pytest.mark.parametrize("direction", [Direction.BULLISH, Direction.BEARISH, Direction.NEUTRAL])
async def test_the_stop_is_one_to_four_atr_for_quiet_and_volatile_stocks(
    case: dict[str, object], direction: Direction
) -> None:
    judge_input = make_input(direction=direction, confidence=0.8, **case)
    proposal = await agent().decide(judge_input)
    assert MIN_STOP_ATR <= stop_in_atr(proposal.stop_loss.distance_percent, judge_input) <= MAX_STOP_ATR
    assert stop_in_atr(proposal.stop_loss.distance_percent, judge_input) == pytest.approx(policy.STOP_ATR_MULTIPLE)


@pytest.mark.parametrize(
    ("horizon", "multiple"),
    [(TimeHorizon.SHORT_TERM, 2.0), (TimeHorizon.MEDIUM_TERM, 2 * math.sqrt(3)), (TimeHorizon.LONG_TERM, 4.0)],
)
async def test_the_stop_grows_with_the_square_root_of_the_horizon(horizon: TimeHorizon, multiple: float) -> None:
    # 20, 60 and 120 trading days: 2, 3.46 and 4.90 ATR, the last held at the 4-ATR bound; the target stays ≥ 2×.
    judge_input = make_input(reference_price=100.0, atr=1.0, risk_factors=(), evidence_horizon=horizon)
    proposal = await agent().decide(judge_input)
    assert proposal.time_horizon is horizon
    assert stop_in_atr(proposal.stop_loss.distance_percent, judge_input) == pytest.approx(multiple, abs=1e-3)
    assert proposal.take_profit.distance_percent >= MIN_REWARD_RISK * proposal.stop_loss.distance_percent - 1e-9


async def test_the_volatile_stock_gets_the_wider_stop() -> None:
    quiet = await agent().decide(make_input(**SAMPLE_QUIET))
    volatile = await agent().decide(make_input(**SAMPLE_VOLATILE))
    assert volatile.stop_loss.distance_percent > quiet.stop_loss.distance_percent
    assert quiet.stop_loss.distance_percent == pytest.approx(6.0)  # 2 × 3 %
    assert volatile.stop_loss.distance_percent == pytest.approx(7.7)  # 2 × 3.85 %


GRID_LEVELS = [
    KeyLevels(),
    KeyLevels(support=(97.0, 95.0, 90.0, 70.0), resistance=(101.0, 104.0, 112.0, 160.0)),
    KeyLevels(support=(99.9,), resistance=(100.1,)),
]


async def test_reward_is_at_least_twice_the_risk_everywhere() -> None:
    grid = itertools.product(
        Direction, (0.3, 0.65, 0.9), (0.05, 0.8, 2.0, 5.0, 12.0), GRID_LEVELS, ((), (104.0, 118.0), (60.0, 80.0))
    )
    for direction, confidence, atr, levels, valuation in grid:
        judge_input = make_input(
            direction=direction,
            confidence=confidence,
            reference_price=100.0,
            atr=atr,
            key_levels=levels,
            intrinsic_value_low=valuation[0] if valuation else None,
            intrinsic_value_high=valuation[1] if valuation else None,
        )
        proposal = await agent().decide(judge_input)
        stop, take = proposal.stop_loss.distance_percent, proposal.take_profit.distance_percent
        assert take >= MIN_REWARD_RISK * stop - 1e-9, judge_input
        assert 1.0 <= stop <= 30.0, judge_input


@pytest.mark.parametrize(
    ("atr", "confidence", "risk_count", "expected"),
    [
        (2.5, 1.0, 0, 20.0),  # stop 5 %: 1 % budget / 5 % = 20 %
        (2.5, 0.8, 2, 9.5),  # 1 × 0.6 × 0.8 = 0.48 % at risk / 5 % = 9.6 → 9.5
        (5.0, 1.0, 0, 10.0),  # stop 10 %: 10 %
        (0.5, 1.0, 0, 30.0),  # stop 1 %: the budget allows 100 %, JUDGE_MAX_POSITION_PERCENT caps it at 30
        (0.5, 0.61, 5, 11.0),  # 1 × 0.22 × 0.5 = 0.11 % / 1 % = 11 %
    ],
)
async def test_the_position_comes_from_the_risk_budget_and_is_capped(
    atr: float, confidence: float, risk_count: int, expected: float
) -> None:
    judge_input = make_input(
        confidence=confidence, reference_price=100.0, atr=atr, risk_factors=risks(risk_count), key_disagreements=()
    )
    proposal = await agent("en").decide(judge_input)
    assert proposal.action is Action.BUY
    assert proposal.position_percent == expected
    stop = proposal.stop_loss.distance_percent
    assert proposal.position_percent <= min(30.0, risk_budget_cap(stop))
    assert "risk budget 1%" in proposal.reasoning


def test_the_risk_budget_formula() -> None:
    assert risk_budget_cap(5.0) == 20.0
    assert risk_budget_cap(6.0) == 16.66  # rounded down
    assert policy.size_by_risk_budget(Action.HOLD, 0.9, 0, 5.0, 30.0) == 0.0
    assert policy.size_by_risk_budget(Action.SELL, 0.9, 0, 5.0, 30.0) == 16.0  # 0.8 % / 5 % = 16


async def test_a_support_in_the_band_moves_the_long_stop_just_below_it() -> None:
    # ATR 2 % of 100. Support 99 is 0.5 ATR away (too close), 95 is 2.5 ATR away: the stop goes 0.25 ATR below it.
    judge_input = make_input(reference_price=100.0, atr=2.0, key_levels=KeyLevels(support=(99.0, 95.0, 80.0)))
    proposal = await agent("en").decide(judge_input)
    assert proposal.stop_loss.distance_percent == pytest.approx(5.5)  # (2.5 + 0.25) × 2 %
    assert "0.25 ATR below support 95" in proposal.stop_loss.basis
    assert "2.75 ATR" in proposal.stop_loss.basis
    assert "support 95" in proposal.entry_strategy


async def test_a_resistance_in_the_band_moves_the_sell_stop_just_above_it() -> None:
    judge_input = make_input(
        direction=Direction.BEARISH, reference_price=100.0, atr=2.0, key_levels=KeyLevels(resistance=(103.0,))
    )
    proposal = await agent("en").decide(judge_input)
    assert proposal.action is Action.SELL
    assert proposal.stop_loss.distance_percent == pytest.approx(3.5)  # (1.5 + 0.25) × 2 %
    assert "0.25 ATR above resistance 103" in proposal.stop_loss.basis


@pytest.mark.parametrize("support", [99.5, 92.0], ids=["closer-than-1-atr", "further-than-3-atr"])
async def test_a_support_outside_the_band_leaves_the_stop_at_two_atr(support: float) -> None:
    judge_input = make_input(reference_price=100.0, atr=2.0, key_levels=KeyLevels(support=(support,)))
    proposal = await agent("en").decide(judge_input)
    assert proposal.stop_loss.distance_percent == pytest.approx(4.0)
    assert proposal.stop_loss.basis.startswith("2 ATR (one ATR = 2.00%, ATR(14) 2.00)")  # the price's precision


async def test_the_take_profit_is_the_first_level_beyond_twice_the_risk() -> None:
    # stop 4 % (2 ATR); floor 8 %: resistance 105 is too close, 112 is the target; 130 would be past 5R = 20 %.
    judge_input = make_input(reference_price=100.0, atr=2.0, key_levels=KeyLevels(resistance=(105.0, 112.0, 130.0)))
    proposal = await agent("en").decide(judge_input)
    assert proposal.take_profit.distance_percent == pytest.approx(12.0)
    assert "resistance 112" in proposal.take_profit.basis
    assert "reward/risk 3.00" in proposal.take_profit.basis


async def test_the_take_profit_may_be_the_valuation_range() -> None:
    judge_input = make_input(reference_price=100.0, atr=2.0, intrinsic_value_low=115.0, intrinsic_value_high=140.0)
    proposal = await agent("en").decide(judge_input)
    assert proposal.take_profit.distance_percent == pytest.approx(15.0)
    assert "intrinsic value range's end 115" in proposal.take_profit.basis


async def test_without_a_level_the_take_profit_is_twice_the_stop() -> None:
    judge_input = make_input(reference_price=100.0, atr=2.0)
    proposal = await agent("en").decide(judge_input)
    assert proposal.take_profit.distance_percent == pytest.approx(8.0)
    assert proposal.take_profit.basis == "2 × the stop distance (reward/risk 2): 8.00% from entry"


async def test_realised_volatility_estimates_the_atr_when_it_is_missing() -> None:
    judge_input = make_input(realised_volatility_pct=40.0)  # no reference price, no ATR
    atr = ATR_PER_DAILY_SIGMA * 40.0 / math.sqrt(TRADING_DAYS_PER_YEAR)  # 3.78 %
    proposal = await agent("en").decide(judge_input)
    assert proposal.stop_loss.distance_percent == pytest.approx(2 * atr)
    assert "estimated from 40% annualised volatility" in proposal.stop_loss.basis
    assert proposal.take_profit.distance_percent == pytest.approx(4 * atr)


async def test_extreme_volatility_keeps_the_stop_inside_the_percent_bounds() -> None:
    calm = await agent("en").decide(make_input(reference_price=100.0, atr=0.1))  # 2 ATR = 0.2 % < 1 %
    wild = await agent("en").decide(make_input(reference_price=100.0, atr=20.0))  # 2 ATR = 40 % > 30 %
    assert calm.stop_loss.distance_percent == 1.0
    assert calm.stop_loss.basis.endswith(
        "limited to 1.00% (10.00 ATR): a stop stays within 1–4 ATR and 1–30% of entry, the percentages first"
    )
    assert wild.stop_loss.distance_percent == 30.0
    assert "limited to 30.00% (1.50 ATR)" in wild.stop_loss.basis


@pytest.mark.parametrize(
    ("kwargs", "stop", "take"),
    [({}, 6.0, 15.0), ({"atr": 2.0}, 6.0, 15.0), ({"reference_price": 100.0}, 6.0, 15.0)],
    ids=["nothing", "atr-without-price", "price-without-atr"],
)
async def test_without_volatility_a_call_is_a_hold_on_the_percentage_rules(
    kwargs: dict[str, float], stop: float, take: float
) -> None:
    """Issue 38: nothing to size or stop a trade by, so no trade; a holder's levels follow the percentage rules."""
    proposal = await agent("en").decide(make_input(**kwargs))
    assert (proposal.action, proposal.position_percent) == (Action.HOLD, 0.0)
    assert (proposal.stop_loss.distance_percent, proposal.take_profit.distance_percent) == (stop, take)
    assert proposal.stop_loss.basis == "MEDIUM risk level: 6% from entry (volatility unknown: percentage rules)"
    assert "There is no price to act on" in proposal.reasoning


@pytest.mark.parametrize(
    ("direction", "evidence", "risk_count", "expected"),
    [
        (Direction.BULLISH, TimeHorizon.LONG_TERM, 5, TimeHorizon.LONG_TERM),  # HIGH risk would say SHORT
        (Direction.BEARISH, TimeHorizon.SHORT_TERM, 0, TimeHorizon.SHORT_TERM),
        (Direction.BULLISH, TimeHorizon.MEDIUM_TERM, 0, TimeHorizon.MEDIUM_TERM),
        (Direction.NEUTRAL, TimeHorizon.LONG_TERM, 0, TimeHorizon.SHORT_TERM),  # HOLD: revisit soon
    ],
)
async def test_the_evidence_horizon_sets_a_trades_horizon(
    direction: Direction, evidence: TimeHorizon, risk_count: int, expected: TimeHorizon
) -> None:
    judge_input = make_input(
        direction=direction, confidence=0.9, risk_factors=risks(risk_count), evidence_horizon=evidence, **PRICED
    )
    proposal = await agent("en").decide(judge_input)
    assert proposal.time_horizon is expected
    if direction is not Direction.NEUTRAL:
        assert "the evidence that carried the debate works on that time scale" in proposal.reasoning


@pytest.mark.parametrize("symbol", ["600519.SH", "000001.SZ", "430047.BJ"])
async def test_an_a_share_sell_means_exit_or_avoid(symbol: str) -> None:
    judge_input = make_input(symbol=symbol, direction=Direction.BEARISH, confidence=0.8, **PRICED)
    zh = await agent("zh").decide(judge_input)
    en = await agent("en").decide(judge_input)
    assert zh.action is Action.SELL
    assert "清仓/回避" in zh.entry_strategy
    assert "做空" not in zh.entry_strategy.replace("不做空", "")
    assert "A 股的卖出指清仓/回避，不是做空" in zh.reasoning
    assert "exit or avoid" in en.entry_strategy
    assert "non-holders stay out" in en.entry_strategy
    assert "SELL means exit or avoid, not a short" in en.reasoning


@pytest.mark.parametrize("symbol", ["AAPL", "0700.HK"])
async def test_elsewhere_a_sell_may_be_a_short(symbol: str) -> None:
    judge_input = make_input(symbol=symbol, direction=Direction.BEARISH, confidence=0.8, **PRICED)
    en = await agent("en").decide(judge_input)
    zh = await agent("zh").decide(judge_input)
    assert en.entry_strategy.startswith("Sell, reduce or short")
    assert "SELL means selling the holding, or a short" in en.reasoning
    assert "或做空" in zh.entry_strategy


async def test_rules_verdicts_with_volatility_never_need_a_guardrail() -> None:
    service = JudgeService(agent(), GuardrailPolicy())
    grid = itertools.product(Direction, (0.3, 0.6, 0.75, 1.0), (0, 2, 6), (0.05, 0.3, 1.7, 4.0, 9.0, 20.0), GRID_LEVELS)
    for direction, confidence, risk_count, atr, levels in grid:
        judge_input = make_input(
            direction=direction,
            confidence=confidence,
            risk_factors=risks(risk_count),
            reference_price=100.0,
            atr=atr,
            key_levels=levels,
            intrinsic_value_low=110.0,
            intrinsic_value_high=125.0,
        )
        verdict = await service.run(judge_input)
        assert verdict.guardrail_adjustments == [], judge_input
    for vol in (3.0, 25.0, 80.0, 400.0):
        verdict = await service.run(make_input(realised_volatility_pct=vol))
        assert verdict.guardrail_adjustments == [], vol


async def test_a_longer_horizon_never_stops_on_a_level_a_short_trade_would_use() -> None:
    """Issue 38 (a LONG_TERM BUY with a −2.9 % stop): the anchor band grows with the horizon like the stop."""
    levels = KeyLevels(support=(97.0,), resistance=(140.0,))  # support 1.5 ATR below the close
    short, long = [
        await agent("en").decide(make_input(reference_price=100.0, atr=2.0, key_levels=levels, evidence_horizon=h))
        for h in (TimeHorizon.SHORT_TERM, TimeHorizon.LONG_TERM)
    ]
    assert (short.time_horizon, long.time_horizon) == (TimeHorizon.SHORT_TERM, TimeHorizon.LONG_TERM)
    assert short.stop_loss.distance_percent == pytest.approx(3.5)  # (1.5 + 0.25) ATR below support 97
    assert long.stop_loss.distance_percent == pytest.approx(8.0)  # 4.90 ATR, held at the 4-ATR bound
    assert long.take_profit.distance_percent >= 2 * long.stop_loss.distance_percent
    assert policy.anchor_scale(TimeHorizon.SHORT_TERM) == 1.0
    assert policy.anchor_scale(TimeHorizon.LONG_TERM) == pytest.approx(2.449, abs=1e-3)
