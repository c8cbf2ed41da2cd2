"""The JSON the LLM judge must return, and the ``VerdictProposal`` it becomes.

Values outside their physical range (a position over 100%, a confidence over 1, a non-positive stop) make
the answer invalid; values inside it but beyond the configured policy (a 45% position with a 30% cap) are
the guardrails' business."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model.enums import Action, TimeHorizon
from shared_contracts.engine import EngineInfo
from shared_contracts.numbers_check import NumbersCheck


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

    def proposal(self, engine: EngineInfo, numbers_check: NumbersCheck | None = None) -> VerdictProposal:
        return VerdictProposal(
            action=Action(self.action),
            position_percent=self.position_percent,
            confidence=self.confidence,
            entry_strategy=self.entry_strategy.strip(),
            stop_loss=LevelProposal(self.stop_loss_percent, self.stop_loss_basis.strip() or "LLM"),
            take_profit=LevelProposal(self.take_profit_percent, self.take_profit_basis.strip() or "LLM"),
            time_horizon=TimeHorizon(self.time_horizon),
            risk_warnings=tuple(self.risk_warnings),
            reasoning=self.reasoning.strip(),
            engine=engine,
            numbers_check=numbers_check,
        )
