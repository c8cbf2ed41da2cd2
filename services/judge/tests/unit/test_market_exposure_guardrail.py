"""Issue 52: the market view scales the position in both engines. The rules engine sizes with the exposure itself
(``VerdictProposal.exposure_applied``); any other engine's BUY/SELL position is multiplied by it in the guardrails,
after the engine's proposal and every cap, and the change is noted (``market_exposure``). Never twice."""

from __future__ import annotations

import json

import pytest
from judge_fakes import (
    PRICED,
    FakeJudgeAgent,
    RecordingLLMEndpoint,
    chat_completion,
    llm_answer,
    make_input,
    make_proposal,
)

from judge.application.dtos.verdict_dto import VerdictDTO
from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.model import risk
from judge.domain.model.enums import Action, Direction
from judge.infrastructure.adapters.judge_agent_adapter import JudgeAgentAdapter
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent

STANDING = {"score": 0.9, "universe_rank": 0.95, "standing_coverage": 1.0}


async def judge(proposal: VerdictProposal, view: str | None, **more: object) -> VerdictDTO:
    service = JudgeService(FakeJudgeAgent(proposal), GuardrailPolicy())
    return await service.run(make_input(market_view=view, **(PRICED | more)))


def rules_of(verdict: VerdictDTO) -> list[str]:
    return [note.rule for note in verdict.guardrail_adjustments]


def test_the_exposure_table_is_one_for_the_rules_engine_and_the_guardrails() -> None:
    assert policy.MARKET_EXPOSURE is risk.MARKET_EXPOSURE
    assert risk.MARKET_EXPOSURE == {"FAVORABLE": 1.0, "NEUTRAL": 0.8, "UNFAVORABLE": 0.6}


@pytest.mark.parametrize(("view", "position"), [("UNFAVORABLE", 7.2), ("NEUTRAL", 9.6)])
async def test_an_engines_buy_is_scaled_by_the_market_exposure_and_noted(view: str, position: float) -> None:
    verdict = await judge(make_proposal(position_percent=12.0), view)

    assert (verdict.action, verdict.position_percent) == (Action.BUY, position)
    assert verdict.market_exposure == risk.MARKET_EXPOSURE[view]
    (note,) = verdict.guardrail_adjustments
    assert note.rule == "market_exposure"
    assert note.detail.startswith(
        f"BUY position 12% × market exposure {risk.MARKET_EXPOSURE[view]:g} (market view {view}"
    )
    assert note.detail.endswith(f"→ {position:g}%")


async def test_a_sell_is_scaled_too() -> None:
    verdict = await judge(
        make_proposal(action=Action.SELL, position_percent=10.0), "UNFAVORABLE", direction=Direction.BEARISH
    )
    assert (verdict.action, verdict.position_percent, verdict.market_exposure) == (Action.SELL, 6.0, 0.6)


async def test_a_favorable_view_keeps_the_whole_position_without_a_note() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), "FAVORABLE")
    assert (verdict.position_percent, verdict.market_exposure) == (12.0, 1.0)
    assert verdict.guardrail_adjustments == []


async def test_without_a_market_view_nothing_is_scaled() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), None)
    assert (verdict.position_percent, verdict.market_exposure) == (12.0, None)
    assert verdict.guardrail_adjustments == []


async def test_a_hold_states_the_exposure_and_opens_nothing() -> None:
    verdict = await judge(make_proposal(action=Action.HOLD, position_percent=0.0), "UNFAVORABLE")
    assert (verdict.action, verdict.position_percent, verdict.market_exposure) == (Action.HOLD, 0.0, 0.6)
    assert verdict.guardrail_adjustments == []


async def test_the_exposure_scales_the_position_left_by_the_caps() -> None:
    """As the rules engine does (its limit × the exposure): 30 % → 16.66 % (1 % risk at a 6 % stop) → × 0.6."""
    verdict = await judge(make_proposal(position_percent=30.0), "UNFAVORABLE")
    assert rules_of(verdict) == ["position_risk_budget_capped", "market_exposure"]
    assert verdict.position_percent == 9.99  # 16.66 × 0.6 = 9.996, rounded down


async def test_a_trade_off_the_debates_side_is_held_before_any_exposure() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), "UNFAVORABLE", direction=Direction.NEUTRAL)
    assert (verdict.action, verdict.position_percent, verdict.market_exposure) == (Action.HOLD, 0.0, 0.6)
    assert rules_of(verdict) == ["debate_side"]


@pytest.mark.parametrize("view", ["FAVORABLE", "NEUTRAL", "UNFAVORABLE"])
async def test_the_rules_engine_is_not_scaled_twice(view: str) -> None:
    """The rules engine sizes with the exposure (``policy.size_standing``): the service keeps its position."""
    agent = RulesJudgeAgent(max_position_percent=30.0, language="en")
    judge_input = make_input(
        direction=Direction.BULLISH, confidence=0.9, market_view=view, risk_factors=(), **(PRICED | STANDING)
    )
    proposal = await agent.decide(judge_input)
    verdict = await JudgeService(agent, GuardrailPolicy()).run(judge_input)

    assert proposal.exposure_applied
    assert verdict.action is Action.BUY
    assert verdict.position_percent == proposal.position_percent == policy.scaled(25.0, risk.MARKET_EXPOSURE[view])
    assert verdict.market_exposure == risk.MARKET_EXPOSURE[view]
    assert "market_exposure" not in rules_of(verdict)


async def test_the_llm_judges_buy_is_scaled_and_its_text_may_quote_the_position_before_it() -> None:
    answer = llm_answer(position_percent=12, stop_loss_percent=6, take_profit_percent=15)
    answer["reasoning"] = "A 12% position at full exposure, 7.2% once the market view is applied."
    endpoint = RecordingLLMEndpoint(lambda _request: chat_completion(json.dumps(answer)))
    agent = JudgeAgentAdapter(endpoint.chat(), max_position_percent=30.0, language="en")

    verdict = await JudgeService(agent, GuardrailPolicy()).run(
        make_input(market_view="UNFAVORABLE", **(PRICED | STANDING))
    )

    assert (verdict.action, verdict.position_percent, verdict.market_exposure) == (Action.BUY, 7.2, 0.6)
    assert rules_of(verdict) == ["market_exposure"]
    assert verdict.numbers_check is not None
    assert verdict.numbers_check.unverified == []
    assert len(endpoint.requests) == 1  # nothing to repair
