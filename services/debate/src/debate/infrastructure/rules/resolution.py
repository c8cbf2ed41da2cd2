"""The rules engine's resolution: weighs the evidence behind both cases (formulas in ``scoring``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.evidence import EvidencePanel, ExpertEvidence
from debate.domain.dtos.risk_matrix import ResolutionResult, RiskMatrixItem
from debate.domain.model.enums import DebateDirection, RiskLevel
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from debate.infrastructure.rules import scoring, standing_texts
from debate.infrastructure.rules.texts import (
    Language,
    Texts,
    coverage_sentence,
    expert_label,
    mitigation_for,
    texts_for,
    weighted,
)
from shared_contracts.experts import Signal

_ORDER = list(RiskLevel)  # HIGH first


def _weight(point: ArgumentPoint) -> float:
    return point.confidence if point.confidence is not None else scoring.STRENGTH_WEIGHT[point.strength]


@dataclass(frozen=True)
class _Side:
    confidence: dict[str, float]  # expert -> weight of its strongest point, strongest expert first
    evidence: dict[str, str]  # expert -> evidence of its strongest point

    @classmethod
    def of(cls, points: list[ArgumentPoint]) -> _Side:
        side = cls({}, {})
        for point in sorted(points, key=lambda p: -_weight(p)):
            for expert in point.source_experts:
                side.confidence.setdefault(expert, _weight(point))
                side.evidence.setdefault(expert, point.evidence)
        return side


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
        experts.setdefault(expert, ExpertEvidence(stance=Signal.NEUTRAL, confidence=scoring.UNKNOWN_CONFIDENCE))
    return EvidencePanel(experts=experts)


def _belief(evidence: ExpertEvidence | None) -> tuple[float, float]:
    """How strongly an expert who warned of a risk believes in it, and its conviction (``scoring``)."""
    if evidence is None or evidence.stance is Signal.NEUTRAL:
        return scoring.UNKNOWN_CONFIDENCE, scoring.UNKNOWN_CONFIDENCE
    belief = evidence.confidence if evidence.stance is Signal.BEARISH else round(1 - evidence.confidence, 6)
    return belief, evidence.confidence


class RulesResolutionAgent(IResolutionAgentPort):
    def __init__(self, language: Language) -> None:
        self._texts = texts_for(language)

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        bull_side, bear_side = _Side.of(bull.supporting_arguments), _Side.of(bear.supporting_arguments)
        panel = _panel_of(bull, bear, bull_side, bear_side)
        standing = bull.weighing or bear.weighing
        if standing is not None:
            return ResolutionResult(
                direction=DebateDirection(standing.direction),
                confidence=standing.confidence,
                risk_matrix=self._risk_matrix(bull.acknowledged_risks, panel),
                key_disagreements=self._disagreements(bull_side, bear_side, self._texts.disagreement_standing),
                conflict_resolution=self._texts.sentence_sep.join(
                    [standing_texts.resolution(self._texts, standing), coverage_sentence(self._texts, panel)]
                ),
            )
        weighing = scoring.weigh(panel)
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
            beliefs = [_belief(panel.experts.get(e)) for e in claim.source_experts] or [_belief(None)]
            items.append(
                RiskMatrixItem(
                    risk=claim.risk,
                    probability=scoring.level_of(max(belief for belief, _ in beliefs)),
                    impact=scoring.level_of(max(conviction for _, conviction in beliefs)),
                    mitigation=mitigation_for(self._texts, claim.source_experts[0] if claim.source_experts else None),
                )
            )
        return sorted(items, key=lambda i: (_ORDER.index(i.probability), _ORDER.index(i.impact)))

    def _disagreements(self, bull: _Side, bear: _Side, template: str | None = None) -> list[str]:
        """Each pair of a bull-side and a bear-side expert, in ``template`` (default: bullish against bearish; the
        standing's: adds to the score against takes from it, since a side there is a contribution's sign)."""
        texts = self._texts
        lines = [
            (template or texts.disagreement).format(
                bull_label=expert_label(texts, b),
                bull_confidence=scoring.fmt(bull.confidence[b]),
                bear_label=expert_label(texts, r),
                bear_confidence=scoring.fmt(bear.confidence[r]),
                bull_evidence=scoring.snippet(bull.evidence[b], scoring.SNIPPET_CHARS),
                bear_evidence=scoring.snippet(bear.evidence[r], scoring.SNIPPET_CHARS),
            )
            for b in bull.confidence
            for r in bear.confidence
            if b != r
        ]
        return lines[: scoring.MAX_DISAGREEMENTS]

    def _explain(self, panel: EvidencePanel, weighing: scoring.Weighing) -> str:
        """The tally, the coverage and the verdict, with every number of the formula."""
        texts = self._texts
        numbers = asdict(weighing) | {"dilution": scoring.NEUTRAL_DILUTION, "threshold": scoring.DIRECTION_THRESHOLD}
        experts = {f"{stance.value.lower()}_experts": _listing(texts, panel, stance) for stance in Signal}
        tally = texts.tally.format(**numbers, **experts, side=texts.side_names[weighing.leading])
        verdict = texts.verdicts[weighing.direction].format(**numbers)
        return texts.sentence_sep.join([tally, coverage_sentence(texts, panel), verdict])


def _listing(texts: Texts, panel: EvidencePanel, stance: Signal) -> str:
    """The experts of one stance, strongest evidence first."""
    experts = sorted(
        ((n, e) for n, e in panel.experts.items() if e.stance is stance), key=lambda i: (-i[1].weight, i[0])
    )
    return texts.list_sep.join(weighted(texts, name, e.confidence, e.coverage) for name, e in experts) or texts.none
