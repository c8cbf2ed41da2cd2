"""DebateOutcomeDTO and its parts, and the one mapping from the domain's arguments to them.

The DTOs *are* the published wire models of ``shared_contracts.debate`` (contracts owned once): what
``DebateService.run`` returns is exactly what ``POST /api/v1/debate/run`` serialises, ``engine`` included.
They hold only basic types and other DTOs — no domain object leaks out. ``coverage`` is stated by the service
from the input (who answered, who failed, how much data each had), whichever engine debated.
"""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument
from debate.domain.dtos.evidence import EvidencePanel
from debate.domain.dtos.resolution_result import ResolutionResult
from shared_contracts.debate import (
    BearCase,
    BullCase,
    DebateCoverage,
    DebateOutcome,
    ExpertCoverage,
    RiskItem,
    SupportingArgument,
)
from shared_contracts.engine import EngineInfo

DebateOutcomeDTO = DebateOutcome
DebateCoverageDTO = DebateCoverage
BullCaseDTO = BullCase
BearCaseDTO = BearCase
RiskItemDTO = RiskItem
SupportingArgumentDTO = SupportingArgument

__all__ = [
    "BearCaseDTO",
    "BullCaseDTO",
    "DebateCoverageDTO",
    "DebateOutcomeDTO",
    "RiskItemDTO",
    "SupportingArgumentDTO",
    "build_outcome",
]


def _supporting(points: list[ArgumentPoint]) -> list[SupportingArgumentDTO]:
    return [
        SupportingArgumentDTO(
            argument=p.argument,
            evidence=p.evidence,
            source_experts=list(p.source_experts),
            strength=p.strength.value,
        )
        for p in points
    ]


def coverage_dto(panel: EvidencePanel) -> DebateCoverageDTO:
    return DebateCoverageDTO(
        experts_asked=panel.asked,
        experts_answered=len(panel.experts),
        failed_experts=list(panel.failed_experts),
        evidence_share=panel.evidence_share,
        experts={
            name: ExpertCoverage(coverage=e.coverage, data_gaps=e.data_gaps, staleness=e.staleness)
            for name, e in panel.experts.items()
        },
    )


def build_outcome(
    symbol: str,
    bull: BullArgument,
    bear: BearArgument,
    resolution: ResolutionResult,
    engine: EngineInfo,
    panel: EvidencePanel | None = None,
) -> DebateOutcomeDTO:
    return DebateOutcomeDTO(
        symbol=symbol,
        direction=resolution.direction.value,
        confidence=resolution.confidence,
        bull_case=BullCaseDTO(
            core_thesis=bull.core_thesis,
            supporting_arguments=_supporting(bull.supporting_arguments),
            acknowledged_risks=[claim.risk for claim in bull.acknowledged_risks],
        ),
        bear_case=BearCaseDTO(
            core_thesis=bear.core_thesis,
            supporting_arguments=_supporting(bear.supporting_arguments),
            acknowledged_strengths=list(bear.acknowledged_strengths),
        ),
        risk_matrix=[
            RiskItemDTO(
                risk=item.risk,
                probability=item.probability.value,
                impact=item.impact.value,
                mitigation=item.mitigation,
            )
            for item in resolution.risk_matrix
        ],
        key_disagreements=list(resolution.key_disagreements),
        conflict_resolution=resolution.conflict_resolution,
        engine=engine,
        coverage=coverage_dto(panel) if panel is not None else None,
    )
