"""The evidence behind a debate: each answering expert's stance, confidence and data completeness, and the experts
that were asked for but failed (``DebateInput.panel()``). Both advocates hand it to the resolution, whose port
sees only the two cases.

Data completeness of one expert — how much of its own data it had — from the counts its result names (``coverage``
in the code; the narrative says "data completeness", as the expert's own trace uses "coverage" for the share of
its rules that had data):

    coverage = max(0.50, 1 − 0.10 × data gaps − 0.20 × stale inputs)

An expert's evidence weight is its confidence × its data completeness. A summary without those counts has 1.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.experts import Signal
from shared_contracts.projection import ExpertDataQuality

COVERAGE_PER_DATA_GAP = 0.10
COVERAGE_PER_STALE_INPUT = 0.20
MIN_COVERAGE = 0.50


def coverage_of(quality: ExpertDataQuality) -> float:
    lost = COVERAGE_PER_DATA_GAP * quality.data_gaps + COVERAGE_PER_STALE_INPUT * quality.staleness
    return round(max(MIN_COVERAGE, 1.0 - lost), 4)


class ExpertEvidence(BaseModel):
    model_config = ConfigDict(frozen=True)

    stance: Signal
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    coverage: float = Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    data_gaps: int = Field(default=0, ge=0)
    staleness: int = Field(default=0, ge=0)

    @property
    def weight(self) -> float:
        """Evidence weight: confidence × coverage."""
        return round(self.confidence * self.coverage, 6)


class EvidencePanel(BaseModel):
    model_config = ConfigDict(frozen=True)

    experts: dict[str, ExpertEvidence]  # every answering expert, in input order
    failed_experts: list[str] = Field(default_factory=list)  # asked for, gave no result: missing evidence

    @property
    def asked(self) -> int:
        return len(self.experts) + len(self.failed_experts)

    @property
    def evidence_share(self) -> float:
        """Σ coverage of the answering experts / experts asked (a failed expert contributes 0)."""
        return round(sum(e.coverage for e in self.experts.values()) / self.asked, 4) if self.asked else 0.0
