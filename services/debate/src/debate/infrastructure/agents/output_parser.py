"""The JSON each advocate's model must return (``BullAdvocateOutput``, ``BearAdvocateOutput``; the resolution
returns a ``ResolutionResult`` as is), and the parser that reads an agent's LLM answer as its JSON contract, or
raises LLMOutputParseError saying why.

Accepted: a JSON object, bare, in a ```json fence, or wrapped in prose. Rejected: no/truncated JSON,
NaN/Infinity, missing fields, values outside a vocabulary or range. Unknown extra keys are ignored and
dropped (they never reach the outcome).
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, Field

from debate.domain.model.enums import ArgumentStrength
from service_kit.llm.json_output import parse_model_output
from shared_contracts.errors import LLMOutputParseError


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


M = TypeVar("M", bound=BaseModel)


def parse_agent_output(text: str, model: type[M], *, agent: str) -> M:
    try:
        return parse_model_output(text, model)
    except LLMOutputParseError as exc:
        raise naming_agent(exc, agent=agent) from exc


def naming_agent(exc: LLMOutputParseError, *, agent: str) -> LLMOutputParseError:
    """The agent's refused output (unparseable, cut off at its length limit, or figures refused), the agent
    named in its message and its ``agent`` member."""
    return LLMOutputParseError(f"{agent}: {exc}", agent=agent, raw_output=exc.raw_output)


def check_sources(cited: list[list[str]], allowed: list[str], *, agent: str, raw_output: str) -> None:
    """Every expert an argument cites must be one of the experts in the input."""
    unknown = sorted({expert for sources in cited for expert in sources} - set(allowed))
    if unknown:
        raise LLMOutputParseError(
            f"{agent}: source_experts cites experts not in the input: {', '.join(unknown)}"
            f" (allowed: {', '.join(allowed)})",
            agent=agent,
            raw_output=raw_output,
        )
