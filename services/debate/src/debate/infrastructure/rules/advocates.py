"""The rules engine's bull and bear advocates: each argues only from the evidence on its side.

The bull cites every bullish expert (strongest first) and concedes every expert's risk warning; the bear
cites every bearish expert and concedes every bullish expert's view. Stances come from
``shared_contracts.experts.stance_of`` (UNDERVALUED, FAVORABLE, POSITIVE read as BULLISH, and so on). An
argument names its expert's data completeness when that is below 1; both cases carry the evidence panel.
"""

from __future__ import annotations

from typing import Any

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.dtos.standing_weighing import StandingWeighing
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.infrastructure.rules import standing_texts
from debate.infrastructure.rules.scoring import EVIDENCE_CHARS, fmt, level_of, snippet, split_risks
from debate.infrastructure.rules.texts import Language, Texts, expert_label, texts_for, weighted
from shared_contracts.enum_words import enum_word
from shared_contracts.experts import Signal


def _experts_with(debate_input: DebateInput, stance: Signal) -> list[str]:
    """Experts of that stance, highest confidence first (ties by name, so the order is deterministic)."""
    names = [name for name in debate_input.expert_summaries if debate_input.stance(name) is stance]
    return sorted(names, key=lambda n: (-debate_input.expert_summaries[n].confidence, n))


def _case(debate_input: DebateInput, stance: Signal, texts: Texts) -> dict[str, Any]:
    """What both cases hold: the thesis and one argument per expert of the side's stance."""
    experts, summaries, panel = _experts_with(debate_input, stance), debate_input.expert_summaries, debate_input.panel()
    side = {"side": texts.side_names[stance], "stance": texts.stances[stance]}
    points = []
    for name in experts:
        summary, coverage = summaries[name], panel.experts[name].coverage
        argument = texts.point.format(
            **side,
            label=expert_label(texts, name),
            signal=enum_word(summary.signal, texts.language),
            confidence=fmt(summary.confidence),
            coverage=texts.coverage_note.format(coverage=fmt(coverage)) if coverage < 1.0 else "",
        )
        evidence = snippet(summary.reasoning, EVIDENCE_CHARS)
        points.append(
            ArgumentPoint(
                argument=argument,
                evidence=evidence,
                source_experts=[name],
                strength=level_of(summary.confidence),
                confidence=summary.confidence,
            )
        )
    total = len(summaries)
    thesis = texts.thesis_none.format(**side, symbol=debate_input.symbol, total=total)
    if experts:
        thesis = texts.thesis.format(
            **side,
            symbol=debate_input.symbol,
            count=len(experts),
            total=total,
            experts=texts.list_sep.join(weighted(texts, n, summaries[n].confidence) for n in experts),
            total_confidence=fmt(sum(summaries[n].confidence for n in experts)),
        )
    return {
        "core_thesis": thesis,
        "supporting_arguments": points,
        "considered_experts": list(summaries),
        "panel": panel,
    }


def _standing_case(debate_input: DebateInput, weighing: StandingWeighing, bull: bool, texts: Texts) -> dict[str, Any]:
    """A side's case from the standings: one argument per voting expert whose contribution is on that side."""
    side = weighing.positive() if bull else weighing.negative()
    summaries, panel = debate_input.expert_summaries, debate_input.panel()
    points = [
        ArgumentPoint(
            argument=standing_texts.point(texts, c, bull, panel.experts[c.expert].coverage),
            evidence=snippet(summaries[c.expert].reasoning, EVIDENCE_CHARS),
            source_experts=[c.expert],
            strength=level_of(c.confidence),
            confidence=c.confidence,
        )
        for c in side
    ]
    return {
        "core_thesis": standing_texts.thesis(texts, debate_input.symbol, side, bull),
        "supporting_arguments": points,
        "considered_experts": list(summaries),
        "panel": panel,
        "weighing": weighing,
    }


def _risk_claims(debate_input: DebateInput, texts: Texts) -> list[RiskClaim]:
    """Every expert's risk warning, split into risks; the same risk from several experts is merged."""
    sources: dict[str, list[str]] = {}
    for name, summary in debate_input.expert_summaries.items():
        for risk in split_risks(summary.risk_warning):
            sources.setdefault(risk, []).append(name)
    return [
        RiskClaim(
            risk=texts.risk_with_sources.format(
                risk=risk, sources=texts.list_sep.join(expert_label(texts, n) for n in names)
            ),
            source_experts=names,
        )
        for risk, names in sources.items()
    ]


class RulesBullAdvocateAgent(IBullAdvocateAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def advocate(self, input: DebateInput) -> BullArgument:
        weighing = input.weighing()
        if weighing is not None:
            case = _standing_case(input, weighing, True, self._texts)
        else:
            case = _case(input, Signal.BULLISH, self._texts)
        return BullArgument(**case, acknowledged_risks=_risk_claims(input, self._texts))


class RulesBearAdvocateAgent(IBearAdvocateAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def advocate(self, input: DebateInput) -> BearArgument:
        texts, summaries = self._texts, input.expert_summaries
        weighing = input.weighing()
        if weighing is not None:
            return BearArgument(
                **_standing_case(input, weighing, False, texts),
                acknowledged_strengths=[standing_texts.strength(texts, c) for c in weighing.positive()],
            )
        strengths = [
            texts.strength.format(
                label=expert_label(texts, name),
                signal=enum_word(summaries[name].signal, texts.language),
                confidence=fmt(summaries[name].confidence),
                evidence=snippet(summaries[name].reasoning, EVIDENCE_CHARS // 2),
            )
            for name in _experts_with(input, Signal.BULLISH)
        ]
        return BearArgument(**_case(input, Signal.BEARISH, texts), acknowledged_strengths=strengths)
