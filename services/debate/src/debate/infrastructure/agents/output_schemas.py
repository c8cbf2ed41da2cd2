"""The JSON each advocate's model must return (the resolution returns a ResolutionResult as is)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from debate.domain.model.enums import ArgumentStrength


class ArgumentPointOutput(BaseModel):
    argument: str = Field(min_length=1)
    evidence: str
    source_experts: list[str]
    strength: ArgumentStrength


class AdvocateOutput(BaseModel):
    """What both advocates return; each adds its own acknowledgements."""

    core_thesis: str = Field(min_length=1)
    supporting_arguments: list[ArgumentPointOutput]


class BullAdvocateOutput(AdvocateOutput):
    acknowledged_risks: list[str]


class BearAdvocateOutput(AdvocateOutput):
    acknowledged_strengths: list[str]
