"""The advocates' arguments: what the bull and the bear sides put before the resolution."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from debate.domain.dtos.evidence import EvidencePanel
from debate.domain.dtos.standing_weighing import StandingWeighing
from debate.domain.model.enums import ArgumentStrength
from shared_contracts.numbers_check import NumbersCheck


class ArgumentPoint(BaseModel):
    """One supporting argument, with the experts whose evidence it cites and, when the advocate knows it (the
    rules engine does), their own ``confidence``."""

    model_config = ConfigDict(frozen=True)

    argument: str = Field(min_length=1)
    evidence: str
    source_experts: list[str] = Field(default_factory=list)
    strength: ArgumentStrength
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)


class RiskClaim(BaseModel):
    """A risk the bull side concedes, with the experts who warned of it (empty when not attributed).
    A plain string is read as an unattributed risk."""

    model_config = ConfigDict(frozen=True)

    risk: str = Field(min_length=1)
    source_experts: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"risk": value} if isinstance(value, str) else value


class _Case(BaseModel):
    """A side's case. ``considered_experts`` (every expert whose summary the advocate read) and ``panel`` (the
    evidence it argued from; None for a case built without it, then the resolution reads the points) are set
    by the adapter, not by a model."""

    model_config = ConfigDict(frozen=True)

    core_thesis: str = Field(min_length=1)
    supporting_arguments: list[ArgumentPoint]
    numbers_check: NumbersCheck | None = None
    """What the numbers gate found in an LLM case's texts (set by the adapter)."""


class BullArgument(_Case):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    acknowledged_risks: list[RiskClaim]
    considered_experts: list[str] = Field(default_factory=list)
    panel: EvidencePanel | None = None
    weighing: StandingWeighing | None = None
    """The standings the case argued from (``DebateInput.weighing()``), when the research placed the stock."""


class BearArgument(_Case):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    acknowledged_strengths: list[str]
    considered_experts: list[str] = Field(default_factory=list)
    panel: EvidencePanel | None = None
    weighing: StandingWeighing | None = None
