"""Issue 28: the guardrails hold any engine's verdict to the rules engine's volatility bounds, and the
service expresses the position in whole lots when the portfolio's value is known."""

from __future__ import annotations

import pytest
from judge_fakes import FakeJudgeAgent, make_input, make_proposal

from judge.application.dtos.verdict_dto import VerdictDTO
from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model.enums import Action, Direction


async def judge(proposal: VerdictProposal, language: str = "en", **input_overrides: object) -> VerdictDTO:
    policy = GuardrailPolicy(language=language)  # type: ignore[arg-type]
    return await JudgeService(FakeJudgeAgent(proposal), policy).run(make_input(**input_overrides))


def rules_of(verdict: VerdictDTO) -> list[str]:
    return [note.rule for note in verdict.guardrail_adjustments]


async def test_an_llm_verdict_is_clamped_to_the_atr_bounds_with_every_change_recorded() -> None:
    # ATR 4 % of 100: the LLM's 2 % stop is half an ATR; its 6 % target is 3 % short of 2 × the widened stop;
    # its 30 % position would lose 1.2 % of the portfolio at a 4 % stop.
    proposal = make_proposal(
        position_percent=30.0,
        stop_loss=LevelProposal(2.0, "tight stop"),
        take_profit=LevelProposal(6.0, "near target"),
    )
    verdict = await judge(proposal, reference_price=100.0, atr=4.0)
    assert rules_of(verdict) == [
        "stop_loss_atr_clamped",
        "take_profit_reward_risk_raised",
        "position_risk_budget_capped",
    ]
    assert verdict.stop_loss.percent_from_entry == -4.0
    assert verdict.stop_loss.price == 96.0
    assert verdict.take_profit.percent_from_entry == 8.0
    assert verdict.position_percent == 25.0  # 1 % / 4 % × 100
    stop_note, take_note, position_note = (n.detail for n in verdict.guardrail_adjustments)
    assert "2% (0.50 ATR) → 4.00% (1.00 ATR)" in stop_note
    assert "6% is 1.50 × the 4.00% stop → 8.00%" in take_note
    assert "position 30% → 25%" in position_note
    assert verdict.stop_loss.basis == "tight stop (guardrail: 1–4 ATR, 4.00–16.00%)"
    assert verdict.take_profit.basis == "near target (guardrail: reward/risk at least 2, 8.00% from entry)"


async def test_a_stop_too_wide_for_a_quiet_stock_is_pulled_in() -> None:
    proposal = make_proposal(stop_loss=LevelProposal(9.0, "wide"), take_profit=LevelProposal(20.0, "t"))
    verdict = await judge(proposal, language="zh", reference_price=50.0, atr=0.75)  # ATR 1.5 %: 9 % = 6 ATR
    assert verdict.stop_loss.percent_from_entry == -6.0  # 4 ATR
    assert rules_of(verdict) == ["stop_loss_atr_clamped"]
    assert verdict.stop_loss.basis == "wide（风控限制：1–4 ATR，即 1.50–6.00%）"


async def test_a_verdict_inside_the_bounds_is_left_alone() -> None:
    proposal = make_proposal(position_percent=12.0)  # stop 6 %, take 15 %
    verdict = await judge(proposal, reference_price=100.0, atr=2.5)  # 2.4 ATR; cap 16.66 %
    assert verdict.guardrail_adjustments == []
    assert verdict.position_percent == 12.0


async def test_a_sell_is_held_to_the_same_bounds() -> None:
    proposal = make_proposal(action=Action.SELL, position_percent=20.0, stop_loss=LevelProposal(1.5, "above"))
    verdict = await judge(proposal, direction=Direction.BEARISH, reference_price=100.0, atr=2.0)
    assert verdict.stop_loss.percent_from_entry == 2.0  # 1 ATR, above entry
    assert verdict.position_percent == 20.0  # 1 % / 2 % = 50 %: no cap
    assert rules_of(verdict) == ["stop_loss_atr_clamped"]


async def test_a_hold_keeps_zero_and_only_its_levels_are_bounded() -> None:
    proposal = make_proposal(action=Action.HOLD, position_percent=0.0, stop_loss=LevelProposal(20.0, "far"))
    verdict = await judge(proposal, reference_price=100.0, atr=1.0)
    assert verdict.action is Action.HOLD
    assert verdict.position_percent == 0.0
    assert verdict.stop_loss.percent_from_entry == -4.0
    assert rules_of(verdict) == ["stop_loss_atr_clamped"]


async def test_realised_volatility_bounds_the_verdict_without_an_atr() -> None:
    # 40 % a year: daily σ 2.52 %, ATR ≈ 1.5 × 2.52 = 3.78 %; a 2 % stop is 0.53 ATR.
    proposal = make_proposal(stop_loss=LevelProposal(2.0, "tight"))
    verdict = await judge(proposal, realised_volatility_pct=40.0)
    assert verdict.stop_loss.percent_from_entry == pytest.approx(-3.78, abs=0.01)
    assert "(realised)" in verdict.guardrail_adjustments[0].detail


async def test_without_volatility_only_the_percent_bounds_apply() -> None:
    proposal = make_proposal(
        position_percent=30.0, stop_loss=LevelProposal(2.0, "tight"), take_profit=LevelProposal(3.0, "near")
    )
    verdict = await judge(proposal, reference_price=100.0)
    assert verdict.guardrail_adjustments == []
    assert verdict.position_percent == 30.0


# Lots: shares = floor(value × position % / 100 / price / lot) × lot, the position recomputed from them.


async def test_an_a_share_position_is_whole_lots_of_100() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), reference_price=1480.0, portfolio_value=10_000_000.0)
    assert verdict.position_shares == 800  # 1,200,000 / 1480 = 810.8 shares → 8 lots
    assert verdict.position_percent == 11.84  # 800 × 1480 / 10,000,000
    assert verdict.entry_strategy.endswith(
        "With a portfolio of 10000000 at the reference price 1480: 12% is 800 shares (8 lots of 100), "
        "11.84% of the portfolio."
    )


async def test_an_a_share_sell_is_whole_lots_too() -> None:
    proposal = make_proposal(action=Action.SELL, position_percent=10.0)
    verdict = await judge(
        proposal, language="zh", symbol="000001.SZ", direction=Direction.BEARISH, reference_price=12.34,
        portfolio_value=500_000.0,
    )  # fmt: skip
    assert verdict.position_shares == 4000  # 50,000 / 12.34 = 4051.9 → 40 lots
    assert verdict.position_percent == 9.87
    assert "折合 4000 股（40 手，每手 100 股），实际仓位 9.87%" in verdict.entry_strategy


async def test_elsewhere_one_share_is_the_unit() -> None:
    verdict = await judge(
        make_proposal(position_percent=12.0), symbol="AAPL", reference_price=190.0, portfolio_value=100_000.0
    )
    assert verdict.position_shares == 63  # 12,000 / 190 = 63.2
    assert verdict.position_percent == 11.97


async def test_a_budget_below_one_lot_is_said_and_the_percent_kept() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), reference_price=1500.0, portfolio_value=1_000_000.0)
    assert verdict.position_shares == 0  # 120,000 / 1500 = 80 shares < 100
    assert verdict.position_percent == 12.0
    assert verdict.action is Action.BUY
    assert "the 12% budget (120000) is below one lot (100 shares × 1500 = 150000)" in verdict.entry_strategy


@pytest.mark.parametrize(
    ("overrides", "action"),
    [
        ({"reference_price": 100.0}, Action.BUY),  # no portfolio value
        ({"portfolio_value": 1e6}, Action.BUY),  # no price
        ({"reference_price": 100.0, "portfolio_value": 1e6}, Action.HOLD),
    ],
)
async def test_no_shares_without_value_price_or_trade(overrides: dict[str, float], action: Action) -> None:
    position = 0.0 if action is Action.HOLD else 12.0
    verdict = await judge(make_proposal(action=action, position_percent=position), **overrides)
    assert verdict.position_shares is None
    assert verdict.entry_strategy == "two tranches"


async def test_lots_follow_the_guardrails() -> None:
    """The shares are of the position the guardrails left (here cut by the risk budget to 25 %)."""
    levels = {"stop_loss": LevelProposal(4.0, "s"), "take_profit": LevelProposal(8.0, "t")}
    proposal = make_proposal(position_percent=30.0, **levels)
    verdict = await judge(proposal, reference_price=100.0, atr=2.0, portfolio_value=1_000_000.0)
    assert rules_of(verdict) == ["position_risk_budget_capped"]
    assert verdict.position_shares == 2500
    assert verdict.position_percent == 25.0
