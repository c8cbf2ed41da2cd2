"""Wire models of the debate service (debate spec: DebateOutcomeDTO and its parts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.engine import EngineInfo
from shared_contracts.projection import ExpertDataQuality

Direction = Literal["BULLISH", "BEARISH", "NEUTRAL"]
Level = Literal["HIGH", "MEDIUM", "LOW"]


class DebateRunRequest(BaseModel):
    """``expert_results`` values may be raw research results, coordinator envelopes
    (``{status, data|error}``) or already-normalized summaries (which may carry the result's ``data_gaps``
    and ``staleness`` lists, so the debate can weigh each expert by how much of its data it had).

    ``failed_experts`` names experts that were asked for but failed: missing evidence, which can only lower
    the debate's confidence. A failed envelope in ``expert_results`` counts as one too.

    ``data_quality`` gives, per expert, how many ``data_gaps`` and ``staleness`` notes its result had, for
    callers that send the spec's four-field summaries (the coordinator); it wins over counts read from
    ``expert_results``."""

    model_config = ConfigDict(extra="forbid")

    symbol: str | None = None
    expert_results: dict[str, Any] | None = None
    failed_experts: list[str] | None = None
    data_quality: dict[str, ExpertDataQuality] | None = None


class SupportingArgument(BaseModel):
    argument: str
    evidence: str
    source_experts: list[str] = Field(default_factory=list)
    strength: Level


class BullCase(BaseModel):
    core_thesis: str
    supporting_arguments: list[SupportingArgument]
    acknowledged_risks: list[str]


class BearCase(BaseModel):
    core_thesis: str
    supporting_arguments: list[SupportingArgument]
    acknowledged_strengths: list[str]


class RiskItem(BaseModel):
    risk: str
    probability: Level
    impact: Level
    mitigation: str


class ExpertCoverage(BaseModel):
    """How much of its own data one answering expert had: ``coverage`` (0–1) from its counts of data gaps
    and stale inputs (services/debate/README.md, "Coverage")."""

    coverage: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    data_gaps: int = Field(ge=0)
    staleness: int = Field(ge=0)


class DebateCoverage(BaseModel):
    """How much of the evidence asked for the debate heard."""

    experts_asked: int = Field(ge=0, description="answered + failed")
    experts_answered: int = Field(ge=0)
    failed_experts: list[str] = Field(default_factory=list)
    evidence_share: float = Field(
        ge=0.0, le=1.0, allow_inf_nan=False, description="Σ coverage of the answering experts / experts asked"
    )
    experts: dict[str, ExpertCoverage] = Field(default_factory=dict, description="each answering expert's coverage")


class DebateOutcome(BaseModel):
    symbol: str
    direction: Direction
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    bull_case: BullCase
    bear_case: BearCase
    risk_matrix: list[RiskItem]
    key_disagreements: list[str]
    conflict_resolution: str
    engine: EngineInfo
    coverage: DebateCoverage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Who answered, who failed and how much of their data they had (both engines); optional, "
        "and left out of the serialised outcome when absent, so the spec's shape stays as it was.",
    )
