"""The resolution's result (``ResolutionResult``: direction, confidence, risks, disagreements and why) and the
rows of its risk matrix (``RiskMatrixItem``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from debate.domain.model.enums import DebateDirection, RiskLevel
from shared_contracts.numbers_check import NumbersCheck


class RiskMatrixItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    risk: str = Field(min_length=1)
    probability: RiskLevel
    impact: RiskLevel
    mitigation: str


class ResolutionResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    direction: DebateDirection
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    risk_matrix: list[RiskMatrixItem]
    key_disagreements: list[str]
    conflict_resolution: str = Field(min_length=1)
    numbers_check: NumbersCheck | None = Field(default=None, exclude=True)
    """What the numbers gate found in an LLM resolution's texts (set by the adapter, never read from a model)."""
