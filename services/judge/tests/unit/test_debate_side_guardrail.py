"""Issue 52: the judge trades only on the debate's side, whatever the engine. BUY only on a BULLISH debate, SELL
only on a BEARISH one, HOLD always; any other BUY or SELL becomes a HOLD with no position, named in
``guardrail_adjustments`` (``debate_side``) and in a sentence of the reasoning."""

from __future__ import annotations

import pytest
from judge_fakes import PRICED, FakeJudgeAgent, make_input, make_proposal

from judge.application.dtos.verdict_dto import VerdictDTO
from judge.application.guardrails import GuardrailPolicy, apply_guardrails
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.model.enums import Action, Direction


async def judge(proposal: VerdictProposal, direction: Direction, language: str = "en", **more: object) -> VerdictDTO:
    policy = GuardrailPolicy(language=language)  # type: ignore[arg-type]
    service = JudgeService(FakeJudgeAgent(proposal), policy)
    return await service.run(make_input(direction=direction, confidence=0.4, **(PRICED | more)))


def rules_of(verdict: VerdictDTO) -> list[str]:
    return [note.rule for note in verdict.guardrail_adjustments]


async def test_a_buy_on_a_neutral_debate_becomes_a_hold_with_the_note() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), Direction.NEUTRAL)

    assert (verdict.action, verdict.position_percent) == (Action.HOLD, 0.0)
    (note,) = verdict.guardrail_adjustments
    assert note.rule == "debate_side"
    assert note.detail == (
        "BUY proposed on a NEUTRAL debate outcome (confidence 0.40): BUY only on BULLISH, SELL only on BEARISH "
        "→ HOLD, position 12% → 0%"
    )
    assert verdict.reasoning == (
        "bullish debate (The debate is NEUTRAL: a BUY is taken only on a BULLISH debate and a SELL only on a "
        "BEARISH one, so this BUY is a HOLD.)"
    )


async def test_a_sell_on_a_bullish_debate_becomes_a_hold() -> None:
    verdict = await judge(make_proposal(action=Action.SELL, position_percent=8.0), Direction.BULLISH)

    assert (verdict.action, verdict.position_percent) == (Action.HOLD, 0.0)
    assert rules_of(verdict) == ["debate_side"]
    assert "SELL proposed on a BULLISH debate outcome" in verdict.guardrail_adjustments[0].detail


@pytest.mark.parametrize(
    ("action", "direction"),
    [(Action.BUY, Direction.BEARISH), (Action.SELL, Direction.NEUTRAL)],
)
async def test_every_other_trade_off_the_debates_side_becomes_a_hold(action: Action, direction: Direction) -> None:
    verdict = await judge(make_proposal(action=action), direction)
    assert (verdict.action, verdict.position_percent) == (Action.HOLD, 0.0)
    assert rules_of(verdict) == ["debate_side"]
    assert f"{action.value} proposed on a {direction.value} debate outcome" in verdict.guardrail_adjustments[0].detail


async def test_a_buy_on_a_bullish_debate_is_kept() -> None:
    verdict = await judge(make_proposal(position_percent=12.0), Direction.BULLISH)
    assert (verdict.action, verdict.position_percent) == (Action.BUY, 12.0)
    assert "debate_side" not in rules_of(verdict)
    assert verdict.reasoning == "bullish debate"


async def test_a_sell_on_a_bearish_debate_is_kept() -> None:
    verdict = await judge(make_proposal(action=Action.SELL, position_percent=12.0), Direction.BEARISH)
    assert (verdict.action, verdict.position_percent) == (Action.SELL, 12.0)
    assert "debate_side" not in rules_of(verdict)


@pytest.mark.parametrize("direction", list(Direction))
async def test_a_hold_is_always_allowed(direction: Direction) -> None:
    verdict = await judge(make_proposal(action=Action.HOLD, position_percent=0.0), direction)
    assert (verdict.action, verdict.position_percent) == (Action.HOLD, 0.0)
    assert verdict.guardrail_adjustments == []


async def test_the_reasoning_sentence_is_in_the_report_language() -> None:
    verdict = await judge(make_proposal(), Direction.NEUTRAL, language="zh")
    sentence = "（辩论方向为中性：买入只在看多、卖出只在看空的辩论上执行，此买入改为持有。）"
    assert verdict.reasoning.endswith(sentence)
    assert verdict.guardrail_adjustments[0].rule == "debate_side"  # the notes, like errors, are in English


def test_the_guardrail_binds_any_engine_before_the_service_adds_anything() -> None:
    """``apply_guardrails`` itself (what the LLM adapter also runs to know the levels its texts may quote)."""
    safe, notes = apply_guardrails(make_proposal(), make_input(direction=Direction.NEUTRAL), GuardrailPolicy())
    assert (safe.action, safe.position_percent) == (Action.HOLD, 0.0)
    assert [n.rule for n in notes] == ["debate_side"]
