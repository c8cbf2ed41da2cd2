"""JudgeService with fake agent ports: the normal verdict, every guardrail, failures propagating."""

from __future__ import annotations

import math

import pytest
from judge_fakes import FakeJudgeAgent, make_input, make_proposal

from judge.application.dtos.verdict_dto import VerdictDTO
from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model.enums import Action, Direction, TimeHorizon
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError
from shared_contracts.errors import LLMOutputParseError


async def judge(proposal: VerdictProposal, max_position: float = 30.0, **input_overrides: object) -> VerdictDTO:
    service = JudgeService(FakeJudgeAgent(proposal), GuardrailPolicy(max_position_percent=max_position))
    return await service.run(make_input(**input_overrides))


def rules_of(verdict: VerdictDTO) -> list[str]:
    return [note.rule for note in verdict.guardrail_adjustments]


async def test_normal_verdict_keeps_the_proposal_and_makes_levels_concrete() -> None:
    agent = FakeJudgeAgent(make_proposal())
    service = JudgeService(agent, GuardrailPolicy())
    judge_input = make_input(reference_price=100.0)

    verdict = await service.run(judge_input)

    assert agent.received == [judge_input]
    assert verdict.symbol == "600519.SH"
    assert verdict.action is Action.BUY
    assert verdict.position_percent == 12.0
    assert verdict.confidence == 0.7
    assert verdict.time_horizon is TimeHorizon.MEDIUM_TERM
    assert verdict.stop_loss.percent_from_entry == -6.0
    assert verdict.stop_loss.price == 94.0
    assert verdict.take_profit.percent_from_entry == 15.0
    assert verdict.take_profit.price == 115.0
    assert verdict.risk_warnings == ["需求放缓"]
    assert verdict.engine.kind == "llm"
    assert verdict.guardrail_adjustments == []


async def test_without_reference_price_levels_are_percent_only() -> None:
    verdict = await judge(make_proposal())
    assert verdict.stop_loss.price is None
    assert verdict.stop_loss.percent_from_entry == -6.0


async def test_sell_levels_are_mirrored() -> None:
    verdict = await judge(make_proposal(action=Action.SELL), direction=Direction.BEARISH, reference_price=50.0)
    assert verdict.stop_loss.percent_from_entry == 6.0
    assert verdict.stop_loss.price == 53.0
    assert verdict.take_profit.percent_from_entry == -15.0
    assert verdict.take_profit.price == 42.5


async def test_small_prices_keep_four_decimals() -> None:
    verdict = await judge(make_proposal(), reference_price=0.5)
    assert verdict.stop_loss.price == 0.47


async def test_a_tiny_price_keeps_its_levels_apart_from_the_entry() -> None:
    verdict = await judge(make_proposal(), reference_price=0.0001)
    assert verdict.stop_loss.price is not None
    assert verdict.take_profit.price is not None
    assert verdict.stop_loss.price < 0.0001 < verdict.take_profit.price


@pytest.mark.parametrize(("engine_value", "expected"), [(1.7, 1.0), (-0.2, 0.0), (math.nan, 0.0)])
async def test_confidence_is_clamped_to_unit_interval(engine_value: float, expected: float) -> None:
    verdict = await judge(make_proposal(confidence=engine_value))
    assert verdict.confidence == expected
    assert rules_of(verdict) == ["confidence_clamped"]


async def test_position_is_clamped_to_the_configured_maximum() -> None:
    verdict = await judge(make_proposal(position_percent=45.0))
    assert verdict.position_percent == 30.0
    assert rules_of(verdict) == ["position_clamped"]
    assert "45 → 30" in verdict.guardrail_adjustments[0].detail


async def test_configured_maximum_is_honoured() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), max_position=10.0)
    assert verdict.position_percent == 10.0


async def test_negative_position_becomes_zero_and_buy_becomes_hold() -> None:
    verdict = await judge(make_proposal(position_percent=-5.0))
    assert verdict.position_percent == 0.0
    assert verdict.action is Action.HOLD
    assert rules_of(verdict) == ["position_clamped", "trade_without_position"]


async def test_buy_needs_a_positive_position() -> None:
    verdict = await judge(make_proposal(position_percent=0.0))
    assert verdict.action is Action.HOLD
    assert verdict.position_percent == 0.0
    assert rules_of(verdict) == ["trade_without_position"]


async def test_hold_opens_no_position() -> None:
    verdict = await judge(make_proposal(action=Action.HOLD, position_percent=8.0))
    assert verdict.action is Action.HOLD
    assert verdict.position_percent == 0.0
    assert rules_of(verdict) == ["hold_without_position"]


@pytest.mark.parametrize(("distance", "expected"), [(0.2, 1.0), (80.0, 30.0), (math.inf, 1.0)])
async def test_stop_loss_distance_is_bounded(distance: float, expected: float) -> None:
    verdict = await judge(make_proposal(stop_loss=LevelProposal(distance, "engine")))
    assert verdict.stop_loss.percent_from_entry == -expected
    assert verdict.stop_loss.basis == "engine（风控限制：1–30%）"  # REPORT_LANGUAGE zh, the default
    assert rules_of(verdict) == ["stop_loss_clamped"]


async def test_what_a_guardrail_adds_to_a_basis_is_in_the_report_language() -> None:
    proposal = make_proposal(stop_loss=LevelProposal(80.0, "below support"))
    english = JudgeService(FakeJudgeAgent(proposal), GuardrailPolicy(language="en"))
    verdict = await english.run(make_input())
    assert verdict.stop_loss.basis == "below support (guardrail: 1–30%)"


async def test_take_profit_distance_is_bounded() -> None:
    verdict = await judge(make_proposal(take_profit=LevelProposal(500.0, "engine")))
    assert verdict.take_profit.percent_from_entry == 200.0
    assert rules_of(verdict) == ["take_profit_clamped"]


async def test_risk_warnings_are_deduplicated_and_capped() -> None:
    warnings = ("a", " a ", "", *(f"w{i}" for i in range(12)))
    verdict = await judge(make_proposal(risk_warnings=warnings))
    assert verdict.risk_warnings[:2] == ["a", "w0"]
    assert len(verdict.risk_warnings) == 10
    assert rules_of(verdict) == ["risk_warnings_truncated"]


@pytest.mark.parametrize(
    "error",
    [
        LLMOutputParseError("not json", raw_output="oops"),
        LLMUnavailableError("down"),
        LLMTimeoutError("slow"),
        RuntimeError("bug"),
    ],
)
async def test_agent_failure_propagates(error: Exception) -> None:
    service = JudgeService(FakeJudgeAgent(error=error), GuardrailPolicy())
    with pytest.raises(type(error)) as raised:
        await service.run(make_input())
    assert raised.value is error


def test_policy_rejects_a_nonsense_maximum() -> None:
    with pytest.raises(ValueError, match="max_position_percent"):
        GuardrailPolicy(max_position_percent=0)
