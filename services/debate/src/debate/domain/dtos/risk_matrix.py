"""One row of the risk matrix."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from debate.domain.model.enums import RiskLevel


class RiskMatrixItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    risk: str = Field(min_length=1)
    probability: RiskLevel
    impact: RiskLevel
    mitigation: str
