"""Wire models of the debate service (debate spec: DebateOutcomeDTO and its parts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.engine import EngineInfo

Direction = Literal["BULLISH", "BEARISH", "NEUTRAL"]
Level = Literal["HIGH", "MEDIUM", "LOW"]


class DebateRunRequest(BaseModel):
    """``expert_results`` values may be raw research results, coordinator envelopes
    (``{status, data|error}``) or already-normalized summaries."""

    model_config = ConfigDict(extra="forbid")

    symbol: str | None = None
    expert_results: dict[str, Any] | None = None


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
