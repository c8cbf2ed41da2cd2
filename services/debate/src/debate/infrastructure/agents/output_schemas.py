"""The JSON each advocate's model must return (the resolution returns a ResolutionResult as is)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from debate.domain.model.enums import ArgumentStrength


class ArgumentPointOutput(BaseModel):
    argument: str = Field(min_length=1)
    evidence: str
    source_experts: list[str]
    strength: ArgumentStrength


class BullAdvocateOutput(BaseModel):
    core_thesis: str = Field(min_length=1)
    supporting_arguments: list[ArgumentPointOutput]
    acknowledged_risks: list[str]


class BearAdvocateOutput(BaseModel):
    core_thesis: str = Field(min_length=1)
    supporting_arguments: list[ArgumentPointOutput]
    acknowledged_strengths: list[str]
