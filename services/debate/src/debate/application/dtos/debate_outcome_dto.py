"""DebateOutcomeDTO: what ``DebateService.run`` returns, the published ``shared_contracts.debate`` model that
``POST /api/v1/debate/run`` serialises (no domain object leaks out), and its one mapping from the domain's
arguments. ``coverage`` is stated from the input's evidence panel, whichever engine debated."""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument
from debate.domain.dtos.evidence import EvidencePanel
from debate.domain.dtos.risk_matrix import ResolutionResult
from shared_contracts import debate as wire
from shared_contracts.engine import EngineInfo
from shared_contracts.numbers_check import combine_checks

DebateOutcomeDTO = wire.DebateOutcome


def _supporting(points: list[ArgumentPoint]) -> list[wire.SupportingArgument]:
    return [wire.SupportingArgument.model_validate(point.model_dump(mode="json")) for point in points]


def _coverage(panel: EvidencePanel) -> wire.DebateCoverage:
    return wire.DebateCoverage(
        experts_asked=panel.asked,
        experts_answered=len(panel.experts),
        failed_experts=list(panel.failed_experts),
        evidence_share=panel.evidence_share,
        experts={name: wire.ExpertCoverage.model_validate(e.model_dump()) for name, e in panel.experts.items()},
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
        bull_case=wire.BullCase(
            core_thesis=bull.core_thesis,
            supporting_arguments=_supporting(bull.supporting_arguments),
            acknowledged_risks=[claim.risk for claim in bull.acknowledged_risks],
        ),
        bear_case=wire.BearCase(
            core_thesis=bear.core_thesis,
            supporting_arguments=_supporting(bear.supporting_arguments),
            acknowledged_strengths=list(bear.acknowledged_strengths),
        ),
        risk_matrix=[wire.RiskItem.model_validate(item.model_dump(mode="json")) for item in resolution.risk_matrix],
        key_disagreements=list(resolution.key_disagreements),
        conflict_resolution=resolution.conflict_resolution,
        engine=engine,
        coverage=_coverage(panel) if panel is not None else None,
        numbers_check=combine_checks(
            [
                bull.numbers_check.under("bull_case") if bull.numbers_check else None,
                bear.numbers_check.under("bear_case") if bear.numbers_check else None,
                resolution.numbers_check,
            ]
        ),
    )
