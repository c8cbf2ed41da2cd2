"""The rules engine's bull and bear advocates: each argues only from the evidence on its side.

The bull cites every bullish expert (strongest first) and concedes every expert's risk warning; the bear
cites every bearish expert and concedes every bullish expert's view. Stances come from
``shared_contracts.experts.stance_of`` (UNDERVALUED, FAVORABLE, POSITIVE read as BULLISH, and so on). An
argument names its expert's data coverage when that is below 1; both cases carry the evidence panel.
"""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.infrastructure.rules.scoring import EVIDENCE_CHARS, fmt, snippet, split_risks, strength_of
from debate.infrastructure.rules.texts import Language, Texts, expert_label, texts_for
from shared_contracts.experts import Signal


def _experts_with(debate_input: DebateInput, stance: Signal) -> list[str]:
    """Experts of that stance, highest confidence first (ties by name, so the order is deterministic)."""
    names = [name for name in debate_input.expert_summaries if debate_input.stance(name) is stance]
    return sorted(names, key=lambda n: (-debate_input.expert_summaries[n].confidence, n))


def _points(debate_input: DebateInput, experts: list[str], template: str, texts: Texts) -> list[ArgumentPoint]:
    points = []
    panel = debate_input.panel()
    for name in experts:
        summary = debate_input.expert_summaries[name]
        coverage = panel.experts[name].coverage
        points.append(
            ArgumentPoint(
                argument=template.format(
                    label=expert_label(texts, name),
                    signal=summary.signal,
                    confidence=fmt(summary.confidence),
                    coverage=texts.coverage_note.format(coverage=fmt(coverage)) if coverage < 1.0 else "",
                ),
                evidence=snippet(summary.reasoning, EVIDENCE_CHARS),
                source_experts=[name],
                strength=strength_of(summary.confidence),
                confidence=summary.confidence,
            )
        )
    return points


def _thesis(debate_input: DebateInput, experts: list[str], texts: Texts, template: str, none_template: str) -> str:
    total = len(debate_input.expert_summaries)
    if not experts:
        return none_template.format(symbol=debate_input.symbol, total=total)
    summaries = debate_input.expert_summaries
    return template.format(
        symbol=debate_input.symbol,
        count=len(experts),
        total=total,
        experts=texts.list_sep.join(
            texts.weighted.format(label=expert_label(texts, n), confidence=fmt(summaries[n].confidence))
            for n in experts
        ),
        total_confidence=fmt(sum(summaries[n].confidence for n in experts)),
    )


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
        texts = self._texts
        bullish = _experts_with(input, Signal.BULLISH)
        return BullArgument(
            core_thesis=_thesis(input, bullish, texts, texts.bull_thesis, texts.bull_thesis_none),
            supporting_arguments=_points(input, bullish, texts.bull_point, texts),
            acknowledged_risks=_risk_claims(input, texts),
            considered_experts=list(input.expert_summaries),
            panel=input.panel(),
        )


class RulesBearAdvocateAgent(IBearAdvocateAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def advocate(self, input: DebateInput) -> BearArgument:
        texts = self._texts
        bearish = _experts_with(input, Signal.BEARISH)
        strengths = [
            texts.strength.format(
                label=expert_label(texts, name),
                signal=input.expert_summaries[name].signal,
                confidence=fmt(input.expert_summaries[name].confidence),
                evidence=snippet(input.expert_summaries[name].reasoning, EVIDENCE_CHARS // 2),
            )
            for name in _experts_with(input, Signal.BULLISH)
        ]
        return BearArgument(
            core_thesis=_thesis(input, bearish, texts, texts.bear_thesis, texts.bear_thesis_none),
            supporting_arguments=_points(input, bearish, texts.bear_point, texts),
            acknowledged_strengths=strengths,
            considered_experts=list(input.expert_summaries),
            panel=input.panel(),
        )
