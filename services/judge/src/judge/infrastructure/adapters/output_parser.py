"""The LLM judge's JSON answer: validated by pydantic, turned into a ``VerdictProposal``.

Values outside their physical range (a position over 100%, a confidence over 1, a non-positive stop)
make the answer invalid (``LLMOutputParseError``); values inside it but beyond the configured policy (a
45% position with a 30% cap) are the guardrails' business, not the parser's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.exceptions import LLMOutputParseError
from judge.domain.model.enums import Action, TimeHorizon
from shared_contracts.engine import EngineInfo
from shared_contracts.llm.errors import LLMJSONError
from shared_contracts.llm.json_output import parse_model_output


class JudgeLLMOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: Literal["BUY", "SELL", "HOLD"]
    position_percent: float = Field(ge=0.0, le=100.0, allow_inf_nan=False)
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    entry_strategy: str = Field(min_length=1)
    stop_loss_percent: float = Field(gt=0.0, le=100.0, allow_inf_nan=False)
    stop_loss_basis: str = ""
    take_profit_percent: float = Field(gt=0.0, le=1000.0, allow_inf_nan=False)
    take_profit_basis: str = ""
    time_horizon: Literal["SHORT_TERM", "MEDIUM_TERM", "LONG_TERM"]
    risk_warnings: list[str] = Field(default_factory=list)
    reasoning: str = Field(min_length=1)
    contrarian_justification: str = ""


def parse_verdict(text: str, engine: EngineInfo) -> VerdictProposal:
    try:
        output = parse_model_output(text, JudgeLLMOutput)
    except LLMJSONError as exc:
        raise refused_output(exc) from exc
    return VerdictProposal(
        action=Action(output.action),
        position_percent=output.position_percent,
        confidence=output.confidence,
        entry_strategy=output.entry_strategy.strip(),
        stop_loss=LevelProposal(output.stop_loss_percent, output.stop_loss_basis.strip() or "LLM"),
        take_profit=LevelProposal(output.take_profit_percent, output.take_profit_basis.strip() or "LLM"),
        time_horizon=TimeHorizon(output.time_horizon),
        risk_warnings=tuple(output.risk_warnings),
        reasoning=output.reasoning.strip(),
        engine=engine,
        contrarian_justification=output.contrarian_justification.strip(),
    )


def refused_output(exc: LLMJSONError) -> LLMOutputParseError:
    """The model's refused output (unparseable, or cut off at its length limit), with what it wrote."""
    return LLMOutputParseError(str(exc), raw_output=exc.raw_output)
