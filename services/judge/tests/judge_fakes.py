"""Test doubles and builders for the judge service (fakes of its ports; no mocks of our own code)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import contract_testkit
import httpx2

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model.enums import Action, Direction, TimeHorizon
from judge.domain.ports.judge_agent import IJudgeAgentPort
from shared_contracts.engine import EngineInfo
from shared_contracts.judge import KeyLevels

PRICED: dict[str, Any] = {"reference_price": 100.0, "atr": 2.0}
"""A close to act on and a volatility measure (one ATR = 2 %): what a BUY or SELL needs (``JudgeInput.unpriced``)."""


def make_input(**overrides: Any) -> JudgeInput:
    values: dict[str, Any] = {
        "symbol": "600519.SH",
        "direction": Direction.BULLISH,
        "confidence": 0.8,
        "bull_thesis": "估值低于内在价值",
        "bear_thesis": "行业景气度下行",
        "risk_factors": ("需求放缓", "政策风险"),
        "key_disagreements": ("估值是否合理",),
        "conflict_resolution": "多头略占优",
        "reference_price": None,
        "key_levels": KeyLevels(),
    }
    values.update(overrides)
    return JudgeInput(**values)


def make_proposal(**overrides: Any) -> VerdictProposal:
    base = VerdictProposal(
        action=Action.BUY,
        position_percent=12.0,
        confidence=0.7,
        entry_strategy="two tranches",
        stop_loss=LevelProposal(6.0, "MEDIUM risk"),
        take_profit=LevelProposal(15.0, "MEDIUM risk"),
        time_horizon=TimeHorizon.MEDIUM_TERM,
        risk_warnings=("需求放缓",),
        reasoning="bullish debate",
        engine=EngineInfo(kind="llm", model="fake-model"),
    )
    return replace(base, **overrides)


class FakeJudgeAgent(IJudgeAgentPort):
    """Returns a fixed proposal (or raises a fixed error) and remembers every input it was given."""

    def __init__(self, proposal: VerdictProposal | None = None, error: Exception | None = None) -> None:
        self.proposal = proposal or make_proposal()
        self.error = error
        self.received: list[JudgeInput] = []

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        self.received.append(judge_input)
        if self.error is not None:
            raise self.error
        return self.proposal


class SpyJudgeAgent(IJudgeAgentPort):
    """Delegates to a real agent and remembers the inputs (what the judge received over HTTP)."""

    def __init__(self, inner: IJudgeAgentPort) -> None:
        self.inner = inner
        self.received: list[JudgeInput] = []

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        self.received.append(judge_input)
        return await self.inner.decide(judge_input)


def llm_answer(**overrides: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "action": "BUY",
        "position_percent": 12,
        "confidence": 0.72,
        "entry_strategy": "分两批建仓",
        "stop_loss_percent": 7,
        "stop_loss_basis": "支撑位下方",
        "take_profit_percent": 18,
        "take_profit_basis": "前高阻力位",
        "time_horizon": "MEDIUM_TERM",
        "risk_warnings": ["需求放缓"],
        "reasoning": "多头论点更有力",
    }
    answer.update(overrides)
    return answer


JUDGE_MODEL = "judge-model"


def chat_completion(content: str, model: str = JUDGE_MODEL) -> httpx2.Response:
    return contract_testkit.chat_completion(content, model)


class RecordingLLMEndpoint(contract_testkit.RecordingLLMEndpoint):
    """The shared recording endpoint, answering as the judge's model by default."""

    default_model = JUDGE_MODEL


def wire_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "symbol": "600519.SH",
        "direction": "BULLISH",
        "confidence": 0.8,
        "bull_thesis": "估值低于内在价值",
        "bear_thesis": "行业景气度下行",
        "risk_factors": ["需求放缓", "政策风险"],
        "key_disagreements": ["估值是否合理"],
        "conflict_resolution": "多头略占优",
    }
    body.update(overrides)
    return body
