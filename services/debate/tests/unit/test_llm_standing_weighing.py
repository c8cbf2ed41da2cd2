"""Issue 52, the LLM engine: with the stock's standing by factor family, the bull, bear and resolution prompts
carry the same weighing (each expert's contribution, the score, the rank, the coverage and the direction the rank
rule decided); the bull argues from the positive contributions, the bear from the negative ones, the resolution
explains the direction and confidence it is given; a resolution that answers another direction does not move the
outcome, and a sentence says so."""

from __future__ import annotations

import json

import pytest
from debate_fakes import BEAR_JSON, BULL_JSON, RESOLUTION_JSON, ScriptedLLM, summary

from debate.application.services.debate_service import DebateService
from debate.domain.dtos.debate_input import DebateInput
from debate.infrastructure.adapters.bear_advocate_agent_adapter import BearAdvocateAgentAdapter
from debate.infrastructure.adapters.bull_advocate_agent_adapter import BullAdvocateAgentAdapter
from debate.infrastructure.adapters.resolution_agent_adapter import ResolutionAgentAdapter
from shared_contracts.engine import EngineInfo
from shared_contracts.standing import CompositeStanding, FamilyStanding

CONTRIBUTION_LINES = [
    "- technical_analyst: signal BULLISH, confidence 0.80, weight 0.60, contribution +0.30, percentile 0.90",
    "- valuation_modeler: signal NEUTRAL, confidence 0.40, weight 0.30, contribution -0.06, percentile 0.30",
    "- financial_auditor: signal NEUTRAL, confidence 0.20, weight 0.10, contribution +0.01, percentile 0.60",
    "- macro_intelligence: does not vote (market-wide view: it sets the judge's exposure only); weight 0",
    "- score = the sum of the contributions = +0.25",
    "- universe rank: 0.85 (the score's percentile in the reference universe)",
    "- evidence coverage: 1.00 (share of the composite's weight with data)",
    "- direction: BULLISH, confidence 0.70",
]


def family(name: str, expert: str, score: float, percentile: float, weight: float) -> FamilyStanding:
    return FamilyStanding(
        family=name,  # type: ignore[arg-type]
        expert=expert,
        score=score,
        percentile=percentile,
        weight=weight,
        contribution=round(weight * score, 6),
    )


def weighed_input() -> DebateInput:
    """Technical ranks high (+0.30), valuation low (−0.06), financial a little above the middle (+0.01): score
    +0.25, rank 0.85 → BULLISH at |2 × 0.85 − 1| = 0.70; macro does not vote."""
    composite = CompositeStanding(
        score=0.25,
        universe_rank=0.85,
        coverage=1.0,
        factors_used=["return_1m"],
        universe_scored=100,
        families=[
            family("technical", "technical_analyst", 0.5, 0.9, 0.6),
            family("valuation", "valuation_modeler", -0.2, 0.3, 0.3),
            family("financial", "financial_auditor", 0.1, 0.6, 0.1),
        ],
    )
    return DebateInput(
        symbol="600519.SH",
        expert_summaries={
            "technical_analyst": summary("BULLISH", 0.7, "均线多头排列"),
            "valuation_modeler": summary("UNDERVALUED", 0.65, "PE 分位偏低"),
            "financial_auditor": summary("BEARISH", 0.55, "经营现金流下滑"),
            "macro_intelligence": summary("UNFAVORABLE", 0.6, "需求偏弱"),
        },
        composite=composite,
    )


def llm(resolution: str = RESOLUTION_JSON, bull: str = BULL_JSON) -> ScriptedLLM:
    return ScriptedLLM({"BULL ADVOCATE": bull, "BEAR ADVOCATE": BEAR_JSON, "RESOLUTION": resolution})


def llm_service(model: ScriptedLLM, language: str = "en") -> DebateService:
    return DebateService(
        BullAdvocateAgentAdapter(model, language),  # type: ignore[arg-type]
        BearAdvocateAgentAdapter(model, language),  # type: ignore[arg-type]
        ResolutionAgentAdapter(model, language),  # type: ignore[arg-type]
        EngineInfo(kind="llm", model="m"),
        language=language,
    )


async def test_the_bull_prompt_carries_the_weighing_and_argues_from_the_positive_contributions() -> None:
    model, the_input = llm(), weighed_input()
    argument = await BullAdvocateAgentAdapter(model, "en").advocate(the_input)

    prompt = model.calls[0]["prompt"]
    for line in CONTRIBUTION_LINES:
        assert line in prompt
    assert "Your dimensions (positive contributions): technical_analyst +0.30, financial_auditor +0.01." in prompt
    assert "dimensions with positive contributions" in model.calls[0]["system"]
    assert argument.weighing == the_input.weighing()


async def test_the_bear_prompt_argues_from_the_negative_contributions() -> None:
    model, the_input = llm(), weighed_input()
    argument = await BearAdvocateAgentAdapter(model, "en").advocate(the_input)

    prompt = model.calls[0]["prompt"]
    for line in CONTRIBUTION_LINES:
        assert line in prompt
    assert "Your dimensions (negative contributions): valuation_modeler -0.06." in prompt
    assert "dimensions with negative contributions" in model.calls[0]["system"]
    assert argument.weighing == the_input.weighing()


async def test_the_resolution_is_told_the_direction_and_confidence_are_fixed_by_the_weighing() -> None:
    model, the_input = llm(), weighed_input()
    bull = await BullAdvocateAgentAdapter(model, "en").advocate(the_input)
    bear = await BearAdvocateAgentAdapter(model, "en").advocate(the_input)
    await ResolutionAgentAdapter(model, "en").resolve(the_input.symbol, bull, bear)

    prompt, system = model.calls[2]["prompt"], model.calls[2]["system"]
    for line in CONTRIBUTION_LINES:
        assert prompt.count(line) == 1  # the weighing once, not inside each case
    assert "fixed by this weighing: direction BULLISH, confidence 0.70" in prompt
    assert "do not choose them" in prompt
    assert "`direction` and `confidence` are fixed by it" in system
    assert '"weighing"' not in prompt


async def test_without_a_standing_the_prompts_say_so_and_the_cases_carry_no_weighing() -> None:
    model = llm()
    the_input = weighed_input().model_copy(update={"composite": None})
    bull = await BullAdvocateAgentAdapter(model, "en").advocate(the_input)
    bear = await BearAdvocateAgentAdapter(model, "en").advocate(the_input)
    await ResolutionAgentAdapter(model, "en").resolve(the_input.symbol, bull, bear)

    assert (bull.weighing, bear.weighing) == (None, None)
    prompts = {call["role"]: call["prompt"] for call in model.calls}  # a repair call asks with the same prompt
    advocate, resolution = prompts["BULL ADVOCATE"], prompts["RESOLUTION"]
    assert "Not computed for this stock: argue from the experts' summaries." in advocate
    assert "Not computed for this stock: decide the direction and the confidence" in resolution
    assert "contribution" not in resolution


async def test_figures_quoted_from_the_weighing_trace_through_the_numbers_gate() -> None:
    answer = json.loads(BULL_JSON) | {
        "core_thesis": "Technical adds +0.30 to a score of +0.25; the stock ranks at 0.85 with coverage 1.00."
    }
    model = llm(bull=json.dumps(answer, ensure_ascii=False))
    argument = await BullAdvocateAgentAdapter(model, "en").advocate(weighed_input())

    assert argument.numbers_check is not None
    assert argument.numbers_check.unverified == []
    assert argument.numbers_check.traced >= 4
    assert len(model.calls) == 1  # nothing to repair


@pytest.mark.parametrize(
    ("language", "note"),
    [
        (
            "en",
            "(The resolution answered BEARISH; the direction is the weighing's, fixed by the experts' standings: "
            "BULLISH, confidence 0.70.)",
        ),
        ("zh", "（裁决给出看空；方向以各专家在参照池中相对位置的加权为准：看多，置信度 0.70。）"),
    ],
)
async def test_a_resolution_answering_another_direction_is_settled_on_the_weighing_with_a_note(
    language: str, note: str
) -> None:
    bearish = json.loads(RESOLUTION_JSON) | {"direction": "BEARISH", "confidence": 0.9}
    outcome = await llm_service(llm(json.dumps(bearish, ensure_ascii=False)), language).run(weighed_input())

    assert (outcome.direction, outcome.confidence) == ("BULLISH", 0.7)
    assert (outcome.score, outcome.universe_rank, outcome.standing_coverage) == (0.25, 0.85, 1.0)
    assert outcome.conflict_resolution.startswith(bearish["conflict_resolution"])
    assert outcome.conflict_resolution.endswith(note)
    assert outcome.contributions is not None
    assert sum(c.contribution for c in outcome.contributions) == pytest.approx(0.25)


async def test_a_resolution_on_the_weighings_side_gets_no_note() -> None:
    outcome = await llm_service(llm()).run(weighed_input())  # RESOLUTION_JSON answers BULLISH 0.62
    assert (outcome.direction, outcome.confidence) == ("BULLISH", 0.7)
    assert "The resolution answered" not in outcome.conflict_resolution
