"""The rules engine's resolution: weighs both cases by confidence (formulas in ``scoring``)."""

from __future__ import annotations

from dataclasses import dataclass

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.resolution_result import ResolutionResult
from debate.domain.dtos.risk_matrix import RiskMatrixItem
from debate.domain.model.enums import DebateDirection, RiskLevel
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from debate.infrastructure.rules.scoring import (
    DIRECTION_THRESHOLD,
    MAX_DISAGREEMENTS,
    SNIPPET_CHARS,
    STRENGTH_WEIGHT,
    UNKNOWN_CONFIDENCE,
    confidence_of,
    direction_of,
    fmt,
    risk_level_of,
    snippet,
)
from debate.infrastructure.rules.texts import Language, Texts, expert_label, mitigation_for, texts_for

_RANK = {RiskLevel.HIGH: 2, RiskLevel.MEDIUM: 1, RiskLevel.LOW: 0}


def _weight(point: ArgumentPoint) -> float:
    return point.confidence if point.confidence is not None else STRENGTH_WEIGHT[point.strength]


@dataclass(frozen=True)
class _Side:
    total: float
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
        return cls(sum(_weight(p) for p in points), confidence, evidence)


class RulesResolutionAgent(IResolutionAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        bull_side, bear_side = _Side.of(bull.supporting_arguments), _Side.of(bear.supporting_arguments)
        experts = list(dict.fromkeys([*bull.considered_experts, *bear.considered_experts]))
        experts += [e for e in [*bull_side.confidence, *bear_side.confidence] if e not in experts]
        count = max(1, len(experts))
        score = round((bull_side.total - bear_side.total) / count, 6)
        direction = direction_of(score)
        confidence = confidence_of(direction, score)
        neutral = [e for e in experts if e not in bull_side.confidence and e not in bear_side.confidence]
        return ResolutionResult(
            direction=direction,
            confidence=confidence,
            risk_matrix=self._risk_matrix(bull.acknowledged_risks, bull_side, bear_side),
            key_disagreements=self._disagreements(bull_side, bear_side),
            conflict_resolution=self._explain(bull_side, bear_side, neutral, count, score, direction, confidence),
        )

    def _risk_matrix(self, claims: list[RiskClaim], bull: _Side, bear: _Side) -> list[RiskMatrixItem]:
        items = []
        for claim in claims:
            beliefs, convictions = [UNKNOWN_CONFIDENCE], [UNKNOWN_CONFIDENCE]
            if claim.source_experts:
                beliefs, convictions = [], []
                for expert in claim.source_experts:
                    if expert in bear.confidence:
                        beliefs.append(bear.confidence[expert])
                        convictions.append(bear.confidence[expert])
                    elif expert in bull.confidence:
                        beliefs.append(round(1 - bull.confidence[expert], 6))
                        convictions.append(bull.confidence[expert])
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

    def _explain(
        self,
        bull: _Side,
        bear: _Side,
        neutral: list[str],
        count: int,
        score: float,
        direction: DebateDirection,
        confidence: float,
    ) -> str:
        texts = self._texts
        tally = texts.tally.format(
            bull=_listing(texts, bull.confidence),
            bull_total=fmt(bull.total),
            bear=_listing(texts, bear.confidence),
            bear_total=fmt(bear.total),
            neutral=texts.list_sep.join(expert_label(texts, e) for e in neutral) or texts.none,
            count=count,
            score=f"{score:+.2f}",
        )
        verdict = {
            DebateDirection.BULLISH: texts.verdict_bullish,
            DebateDirection.BEARISH: texts.verdict_bearish,
            DebateDirection.NEUTRAL: texts.verdict_neutral,
        }[direction]
        return (
            tally + texts.sentence_sep + verdict.format(threshold=fmt(DIRECTION_THRESHOLD), confidence=fmt(confidence))
        )


def _listing(texts: Texts, confidence: dict[str, float]) -> str:
    weighted = [texts.weighted.format(label=expert_label(texts, e), confidence=fmt(c)) for e, c in confidence.items()]
    return texts.list_sep.join(weighted) or texts.none
