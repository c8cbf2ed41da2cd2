"""DebateService: bull ∥ bear, then resolution; failures propagate; the opt-in fallback is visible."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from contract_testkit import DEBATE_FIELDS
from debate_fakes import (
    FakeBearAgent,
    FakeBullAgent,
    FakeResolutionAgent,
    bear_argument,
    bull_argument,
    debate_input,
    resolution_result,
    summary,
)

from debate.application.dtos.debate_outcome_dto import DebateOutcomeDTO
from debate.application.services.debate_service import Debate, DebateService
from debate.domain.model.enums import DebateDirection
from service_kit.llm.fallback import RulesFallback
from shared_contracts.debate import DebateOutcome
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError

RULES = EngineInfo(kind="rules")


def _service(
    bull: FakeBullAgent | None = None,
    bear: FakeBearAgent | None = None,
    resolution: FakeResolutionAgent | None = None,
) -> tuple[DebateService, FakeBullAgent, FakeBearAgent, FakeResolutionAgent]:
    bull, bear, resolution = bull or FakeBullAgent(), bear or FakeBearAgent(), resolution or FakeResolutionAgent()
    return DebateService(bull, bear, resolution, RULES), bull, bear, resolution


async def test_three_stages_complete_and_outcome_carries_every_part() -> None:
    service, bull, bear, resolution = _service(
        resolution=FakeResolutionAgent(resolution_result(DebateDirection.BEARISH, 0.41))
    )
    the_input = debate_input("AAPL", technical_analyst=summary("BEARISH", 0.6))

    outcome = await service.run(the_input)

    assert bull.inputs == [the_input]
    assert bear.inputs == [the_input]
    assert resolution.calls == [("AAPL", bull.result, bear.result)]
    assert isinstance(outcome, DebateOutcomeDTO)
    assert outcome.symbol == "AAPL"
    assert outcome.direction == "BEARISH"
    assert outcome.confidence == 0.41
    assert outcome.bull_case.core_thesis == bull.result.core_thesis
    assert outcome.bull_case.supporting_arguments[0].source_experts == ["technical_analyst"]
    assert outcome.bull_case.acknowledged_risks == ["短线超买"]
    assert outcome.bear_case.acknowledged_strengths == ["技术面强势"]
    assert outcome.risk_matrix[0].impact == "HIGH"
    assert outcome.key_disagreements == ["技术面强势 vs 现金流下滑"]
    assert outcome.conflict_resolution == "技术面证据更强，多方胜出"
    assert outcome.engine == RULES


async def test_outcome_serialises_to_the_wire_model_with_every_spec_field() -> None:
    service, *_ = _service()
    outcome = await service.run(debate_input())
    wire = outcome.model_dump(mode="json")
    assert set(wire) == {"symbol", *DEBATE_FIELDS, "engine", "coverage"}  # coverage: optional, beyond the spec
    assert set(wire["bull_case"]) == {"core_thesis", "supporting_arguments", "acknowledged_risks"}
    assert set(wire["bear_case"]) == {"core_thesis", "supporting_arguments", "acknowledged_strengths"}
    assert set(wire["risk_matrix"][0]) == {"risk", "probability", "impact", "mitigation"}
    assert DebateOutcome.model_validate(wire) == outcome
    spec_shape = {k: v for k, v in wire.items() if k != "coverage"}
    without = DebateOutcome.model_validate(spec_shape)  # the spec's shape alone still validates,
    assert without.coverage is None
    assert set(without.model_dump(mode="json")) == {"symbol", *DEBATE_FIELDS, "engine"}  # and dumps as it was


async def test_bull_and_bear_run_concurrently_both_reach_a_barrier_of_two() -> None:
    """Sequential execution would leave the first advocate waiting at the barrier forever."""
    service, bull, bear, resolution = _service()
    barrier = asyncio.Barrier(2)
    bull.barrier = barrier
    bear.barrier = barrier

    async with asyncio.timeout(5):  # a hang guard only; the proof is the barrier
        outcome = await service.run(debate_input())

    assert outcome.direction == "BULLISH"
    assert len(resolution.calls) == 1


async def test_resolution_runs_only_after_both_cases_are_ready() -> None:
    service, bull, bear, resolution = _service()
    await service.run(debate_input())
    (_, seen_bull, seen_bear) = resolution.calls[0]
    assert seen_bull is bull.result
    assert seen_bear is bear.result


async def test_bull_failure_propagates_and_stops_the_debate() -> None:
    boom = RuntimeError("bull exploded")
    service, _, bear, resolution = _service(bull=FakeBullAgent(error=boom))
    bear.block_forever = True

    with pytest.raises(RuntimeError) as caught:
        await service.run(debate_input())

    assert caught.value is boom
    assert bear.cancelled, "the sibling advocate is cancelled, not left running"
    assert resolution.calls == []


async def test_bear_failure_propagates() -> None:
    boom = LLMOutputParseError("bear: not JSON", agent="bear_advocate", raw_output="nope")
    service, _, _, resolution = _service(bear=FakeBearAgent(error=boom))

    with pytest.raises(LLMOutputParseError) as caught:
        await service.run(debate_input())

    assert caught.value is boom
    assert resolution.calls == []


async def test_resolution_failure_propagates_after_both_advocates_answered() -> None:
    boom = ValueError("resolution exploded")
    service, bull, bear, _ = _service(resolution=FakeResolutionAgent(error=boom))

    with pytest.raises(ValueError, match="resolution exploded"):
        await service.run(debate_input())

    assert len(bull.inputs) == 1
    assert len(bear.inputs) == 1


def _falling_back_to(rules: DebateService) -> Callable[[Debate], Debate]:
    return lambda debate: RulesFallback(debate, rules.run)


async def test_fallback_answers_with_the_fallback_engine_and_says_why() -> None:
    fallback = DebateService(
        FakeBullAgent(bull_argument("规则多头")), FakeBearAgent(bear_argument()), FakeResolutionAgent(), RULES
    )
    primary = DebateService(
        FakeBullAgent(error=LLMOutputParseError("bull: bad", agent="bull_advocate")),
        FakeBearAgent(),
        FakeResolutionAgent(),
        EngineInfo(kind="llm", model="m1"),
        fallback=_falling_back_to(fallback),
    )

    outcome = await primary.run(debate_input())

    assert outcome.bull_case.core_thesis == "规则多头"
    assert outcome.engine.kind == "rules"
    assert outcome.engine.fallback_reason is not None
    assert "llm_output_invalid" in outcome.engine.fallback_reason
    assert "bull: bad" in outcome.engine.fallback_reason


async def test_without_fallback_an_engine_error_is_never_swallowed() -> None:
    primary = DebateService(
        FakeBullAgent(error=LLMOutputParseError("bull: bad", agent="bull_advocate")),
        FakeBearAgent(),
        FakeResolutionAgent(),
        EngineInfo(kind="llm", model="m1"),
    )
    with pytest.raises(LLMOutputParseError):
        await primary.run(debate_input())


async def test_fallback_does_not_catch_errors_other_than_llm_failures() -> None:
    fallback = DebateService(FakeBullAgent(), FakeBearAgent(), FakeResolutionAgent(), RULES)
    primary = DebateService(
        FakeBullAgent(error=KeyError("bug")),
        FakeBearAgent(),
        FakeResolutionAgent(),
        EngineInfo(kind="llm", model="m1"),
        fallback=_falling_back_to(fallback),
    )
    with pytest.raises(KeyError):
        await primary.run(debate_input())
