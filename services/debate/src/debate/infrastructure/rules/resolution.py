"""The rules engine's resolution: weighs the evidence behind both cases (formulas in ``scoring``)."""

from __future__ import annotations

from dataclasses import dataclass

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.evidence import EvidencePanel, ExpertEvidence
from debate.domain.dtos.resolution_result import ResolutionResult
from debate.domain.dtos.risk_matrix import RiskMatrixItem
from debate.domain.model.enums import RiskLevel
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from debate.infrastructure.rules.scoring import (
    DIRECTION_THRESHOLD,
    MAX_DISAGREEMENTS,
    NEUTRAL_DILUTION,
    SNIPPET_CHARS,
    STRENGTH_WEIGHT,
    UNKNOWN_CONFIDENCE,
    Weighing,
    fmt,
    risk_level_of,
    snippet,
    weigh,
)
from debate.infrastructure.rules.texts import (
    Language,
    Texts,
    coverage_sentence,
    expert_label,
    mitigation_for,
    texts_for,
)
from shared_contracts.experts import Signal

_RANK = {RiskLevel.HIGH: 2, RiskLevel.MEDIUM: 1, RiskLevel.LOW: 0}


def _weight(point: ArgumentPoint) -> float:
    return point.confidence if point.confidence is not None else STRENGTH_WEIGHT[point.strength]


@dataclass(frozen=True)
class _Side:
    confidence: dict[str, float]  # expert -> weight of its strongest point, strongest expert first
    evidence: dict[str, str]  # expert -> evidence of its strongest point

    @classmethod
    def of(cls, points: list[ArgumentPoint]) -> _Side:
        ranked = sorted(points, key=lambda p: -_weight(p))
        confidence: dict[str, float] = {}
        evidence: dict[str, str] = {}
        for point in ranked:
            for expert in point.source_experts:
                confidence.setdefault(expert, _weight(point))
                evidence.setdefault(expert, point.evidence)
        return cls(confidence, evidence)


def _panel_of(bull: BullArgument, bear: BearArgument, bull_side: _Side, bear_side: _Side) -> EvidencePanel:
    """The advocates' panel; for cases built without one, the experts their points cite (at the weight of
    their strongest point, full coverage) and the other experts considered as neutral of unknown confidence."""
    panel = bull.panel or bear.panel
    if panel is not None:
        return panel
    experts: dict[str, ExpertEvidence] = {}
    for stance, side in ((Signal.BULLISH, bull_side), (Signal.BEARISH, bear_side)):
        for expert, confidence in side.confidence.items():
            if expert not in experts or experts[expert].confidence < confidence:
                experts[expert] = ExpertEvidence(stance=stance, confidence=confidence)
    for expert in [*bull.considered_experts, *bear.considered_experts]:
        experts.setdefault(expert, ExpertEvidence(stance=Signal.NEUTRAL, confidence=UNKNOWN_CONFIDENCE))
    return EvidencePanel(experts=experts)


class RulesResolutionAgent(IResolutionAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        bull_side, bear_side = _Side.of(bull.supporting_arguments), _Side.of(bear.supporting_arguments)
        panel = _panel_of(bull, bear, bull_side, bear_side)
        weighing = weigh(panel)
        return ResolutionResult(
            direction=weighing.direction,
            confidence=weighing.confidence,
            risk_matrix=self._risk_matrix(bull.acknowledged_risks, panel),
            key_disagreements=self._disagreements(bull_side, bear_side),
            conflict_resolution=self._explain(panel, weighing),
        )

    def _risk_matrix(self, claims: list[RiskClaim], panel: EvidencePanel) -> list[RiskMatrixItem]:
        items = []
        for claim in claims:
            beliefs, convictions = [UNKNOWN_CONFIDENCE], [UNKNOWN_CONFIDENCE]
            if claim.source_experts:
                beliefs, convictions = [], []
                for expert in claim.source_experts:
                    evidence = panel.experts.get(expert)
                    if evidence is not None and evidence.stance is Signal.BEARISH:
                        beliefs.append(evidence.confidence)
                        convictions.append(evidence.confidence)
                    elif evidence is not None and evidence.stance is Signal.BULLISH:
                        beliefs.append(round(1 - evidence.confidence, 6))
                        convictions.append(evidence.confidence)
                    else:
                        beliefs.append(UNKNOWN_CONFIDENCE)
                        convictions.append(UNKNOWN_CONFIDENCE)
            source = claim.source_experts[0] if claim.source_experts else None
            items.append(
                RiskMatrixItem(
                    risk=claim.risk,
                    probability=risk_level_of(max(beliefs)),
                    impact=risk_level_of(max(convictions)),
                    mitigation=mitigation_for(self._texts, source),
                )
            )
        return sorted(items, key=lambda i: (-_RANK[i.probability], -_RANK[i.impact]))

    def _disagreements(self, bull: _Side, bear: _Side) -> list[str]:
        texts = self._texts
        lines = [
            texts.disagreement.format(
                bull_label=expert_label(texts, b),
                bull_confidence=fmt(bull.confidence[b]),
                bear_label=expert_label(texts, r),
                bear_confidence=fmt(bear.confidence[r]),
                bull_evidence=snippet(bull.evidence[b], SNIPPET_CHARS),
                bear_evidence=snippet(bear.evidence[r], SNIPPET_CHARS),
            )
            for b in bull.confidence
            for r in bear.confidence
            if b != r
        ]
        return lines[:MAX_DISAGREEMENTS]

    def _explain(self, panel: EvidencePanel, weighing: Weighing) -> str:
        texts = self._texts
        tally = texts.tally.format(
            bull=_listing(texts, panel, Signal.BULLISH),
            bull_total=fmt(weighing.bull),
            bear=_listing(texts, panel, Signal.BEARISH),
            bear_total=fmt(weighing.bear),
            neutral=_listing(texts, panel, Signal.NEUTRAL),
            neutral_total=fmt(weighing.neutral),
            dilution=fmt(NEUTRAL_DILUTION),
            balance=f"{weighing.balance:+.2f}",
            leading=texts.side_names[weighing.leading.value],
            strength=fmt(weighing.strength),
            score=f"{weighing.score:+.2f}",
        )
        verdict = {
            Signal.BULLISH: texts.verdict_bullish,
            Signal.BEARISH: texts.verdict_bearish,
            Signal.NEUTRAL: texts.verdict_neutral,
        }[Signal(weighing.direction.value)]
        return texts.sentence_sep.join(
            [
                tally,
                coverage_sentence(texts, panel),
                verdict.format(
                    threshold=fmt(DIRECTION_THRESHOLD),
                    factor=fmt(weighing.missing_factor),
                    confidence=fmt(weighing.confidence),
                ),
            ]
        )


def _listing(texts: Texts, panel: EvidencePanel, stance: Signal) -> str:
    """The experts of one stance, strongest evidence first: "label confidence" or "label confidence×coverage"."""
    of_stance = [(name, e) for name, e in panel.experts.items() if e.stance is stance]
    experts = sorted(of_stance, key=lambda item: (-item[1].weight, item[0]))
    weighted = [
        texts.weighted.format(label=expert_label(texts, name), confidence=fmt(e.confidence))
        if e.coverage >= 1.0
        else texts.weighted_coverage.format(
            label=expert_label(texts, name), confidence=fmt(e.confidence), coverage=fmt(e.coverage)
        )
        for name, e in experts
    ]
    return texts.list_sep.join(weighted) or texts.none
