"""Fakes of the debate's ports and builders of test data (shared by the debate tests)."""

from __future__ import annotations

import asyncio
from typing import Any

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument, BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput, ExpertSummary
from debate.domain.dtos.risk_matrix import ResolutionResult, RiskMatrixItem
from debate.domain.model.enums import ArgumentStrength, DebateDirection, RiskLevel
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort

# Sentinels planted in the bulk/debug fields of raw research results: none may reach a prompt or outcome.
BULK_SENTINELS = {
    "input": "SENTINEL_INPUT_PROMPT",
    "output": "SENTINEL_RAW_OUTPUT",
    "user_prompt": "SENTINEL_USER_PROMPT",
    "raw_llm_output": "SENTINEL_RAW_LLM_OUTPUT",
    "technical_indicators": "SENTINEL_TECH_INDICATORS",
    "financial_indicators": "SENTINEL_FIN_INDICATORS",
    "valuation_indicators": "SENTINEL_VAL_INDICATORS",
    "macro_indicators": "SENTINEL_MACRO_INDICATORS",
    "catalyst_context": "SENTINEL_CATALYST_CONTEXT",
    "dimension_analyses": "SENTINEL_DIMENSIONS",
    "key_technical_levels": "SENTINEL_KEY_LEVELS",
    "estimated_intrinsic_value_range": "SENTINEL_VALUE_RANGE",
    "information_sources": "SENTINEL_SOURCES_URL",
}


def raw_research_results() -> dict[str, Any]:
    """Five raw expert results shaped as the research service returns them, bulk fields included."""
    s = BULK_SENTINELS
    engine = {"kind": "rules", "model": None, "fallback_reason": None}
    common = {"symbol": "600519.SH", "as_of": "2026-11-20", "data_source": "offline", "engine": engine}
    return {
        "technical_analyst": {
            **common,
            "signal": "BULLISH",
            "confidence": 0.72,
            "summary_reasoning": "MA20 上穿 MA60，MACD 金叉，量能放大",
            "risk_warning": "RSI 接近 70，短线超买",
            "key_technical_levels": {"support": s["key_technical_levels"]},
            "technical_indicators": {"note": s["technical_indicators"]},
            "input": s["input"],
            "output": s["output"],
        },
        "financial_auditor": {
            **common,
            "signal": "BEARISH",
            "confidence": 0.6,
            "summary_reasoning": "应收账款增速高于营收增速，经营现金流下滑",
            "risk_warning": "现金流恶化",
            "financial_indicators": {"note": s["financial_indicators"]},
            "dimension_analyses": [{"note": s["dimension_analyses"]}],
            "input": s["input"],
            "output": s["output"],
        },
        "valuation_modeler": {
            **common,
            "valuation_verdict": "UNDERVALUED",
            "confidence_score": 0.65,
            "reasoning_summary": "PE 处于近十年 20% 分位",
            "risk_factors": ["利率上升压制估值", "现金流恶化"],
            "estimated_intrinsic_value_range": {"note": s["estimated_intrinsic_value_range"]},
            "valuation_indicators": {"note": s["valuation_indicators"]},
            "input": s["input"],
            "output": s["output"],
        },
        "macro_intelligence": {
            **common,
            "macro_environment": "NEUTRAL",
            "confidence_score": 0.5,
            "macro_summary": "宏观环境平稳，政策中性",
            "key_risks": ["外需放缓"],
            "macro_indicators": {"note": s["macro_indicators"]},
            "information_sources": [s["information_sources"]],
            "input": s["input"],
            "output": s["output"],
        },
        "catalyst_detective": {
            "symbol": "600519.SH",
            "result": {
                "catalyst_assessment": "POSITIVE",
                "confidence_score": 0.55,
                "catalyst_summary": "新品提价落地",
                "positive_catalysts": [{"title": "提价", "description": "出厂价上调"}],
                "negative_catalysts": [{"title": "渠道库存", "description": "经销商库存偏高"}],
            },
            "raw_llm_output": s["raw_llm_output"],
            "user_prompt": s["user_prompt"],
            "catalyst_context": {"note": s["catalyst_context"]},
            "as_of": "2026-11-20",
            "data_source": "offline",
            "engine": engine,
        },
    }


def summary(signal: str, confidence: float, reasoning: str = "理由", risk: str = "") -> ExpertSummary:
    return ExpertSummary(signal=signal, confidence=confidence, reasoning=reasoning, risk_warning=risk)


def debate_input(symbol: str = "600519.SH", **summaries: ExpertSummary) -> DebateInput:
    return DebateInput(symbol=symbol, expert_summaries=summaries or {"technical_analyst": summary("BULLISH", 0.7)})


def bull_argument(thesis: str = "多头核心论点") -> BullArgument:
    return BullArgument(
        core_thesis=thesis,
        supporting_arguments=[
            ArgumentPoint(
                argument="均线多头排列",
                evidence="MA20 > MA60",
                source_experts=["technical_analyst"],
                strength=ArgumentStrength.HIGH,
            )
        ],
        acknowledged_risks=[RiskClaim(risk="短线超买", source_experts=["technical_analyst"])],
        considered_experts=["technical_analyst"],
    )


def bear_argument(thesis: str = "空头核心论点") -> BearArgument:
    return BearArgument(
        core_thesis=thesis,
        supporting_arguments=[
            ArgumentPoint(
                argument="现金流下滑",
                evidence="经营现金流同比 -20%",
                source_experts=["financial_auditor"],
                strength=ArgumentStrength.MEDIUM,
            )
        ],
        acknowledged_strengths=["技术面强势"],
        considered_experts=["technical_analyst"],
    )


def resolution_result(
    direction: DebateDirection = DebateDirection.BULLISH, confidence: float = 0.66
) -> ResolutionResult:
    return ResolutionResult(
        direction=direction,
        confidence=confidence,
        risk_matrix=[
            RiskMatrixItem(risk="短线超买", probability=RiskLevel.MEDIUM, impact=RiskLevel.HIGH, mitigation="设置止损")
        ],
        key_disagreements=["技术面强势 vs 现金流下滑"],
        conflict_resolution="技术面证据更强，多方胜出",
    )


class FakeBullAgent(IBullAdvocateAgentPort):
    def __init__(self, result: BullArgument | None = None, *, error: Exception | None = None) -> None:
        self.result = result or bull_argument()
        self.error = error
        self.inputs: list[DebateInput] = []
        self.barrier: asyncio.Barrier | None = None
        self.cancelled = False

    async def advocate(self, input: DebateInput) -> BullArgument:
        self.inputs.append(input)
        if self.barrier is not None:
            await self.barrier.wait()
        if self.error is not None:
            raise self.error
        return self.result


class FakeBearAgent(IBearAdvocateAgentPort):
    def __init__(self, result: BearArgument | None = None, *, error: Exception | None = None) -> None:
        self.result = result or bear_argument()
        self.error = error
        self.inputs: list[DebateInput] = []
        self.barrier: asyncio.Barrier | None = None
        self.cancelled = False
        self.block_forever = False

    async def advocate(self, input: DebateInput) -> BearArgument:
        self.inputs.append(input)
        if self.barrier is not None:
            await self.barrier.wait()
        if self.block_forever:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        if self.error is not None:
            raise self.error
        return self.result


class FakeResolutionAgent(IResolutionAgentPort):
    def __init__(self, result: ResolutionResult | None = None, *, error: Exception | None = None) -> None:
        self.result = result or resolution_result()
        self.error = error
        self.calls: list[tuple[str, BullArgument, BearArgument]] = []

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        self.calls.append((symbol, bull, bear))
        if self.error is not None:
            raise self.error
        return self.result


class ScriptedLLM(ILLMPort):
    """Answers by agent: the system prompt names the role (BULL ADVOCATE / BEAR ADVOCATE / RESOLUTION)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.calls: list[dict[str, Any]] = []

    async def generate(self, prompt: str, system_message: str | None, temperature: float) -> str:
        role = next(r for r in ("BULL ADVOCATE", "BEAR ADVOCATE", "RESOLUTION") if r in (system_message or ""))
        self.calls.append({"role": role, "prompt": prompt, "system": system_message, "temperature": temperature})
        return self.answers[role]


BULL_JSON = """{
  "core_thesis": "技术面与估值共振，看多",
  "supporting_arguments": [
    {"argument": "均线多头排列", "evidence": "MA20 上穿 MA60",
     "source_experts": ["technical_analyst"], "strength": "HIGH"},
    {"argument": "估值偏低", "evidence": "PE 20% 分位",
     "source_experts": ["valuation_modeler"], "strength": "MEDIUM"}
  ],
  "acknowledged_risks": ["短线超买", "现金流恶化"]
}"""

BEAR_JSON = """```json
{
  "core_thesis": "现金流恶化，看空",
  "supporting_arguments": [
    {"argument": "现金流下滑", "evidence": "经营现金流下滑",
     "source_experts": ["financial_auditor"], "strength": "MEDIUM"}
  ],
  "acknowledged_strengths": ["技术面强势"]
}
```"""

RESOLUTION_JSON = """{
  "direction": "BULLISH",
  "confidence": 0.62,
  "risk_matrix": [
    {"risk": "现金流恶化", "probability": "MEDIUM", "impact": "HIGH", "mitigation": "跟踪下一期财报"}
  ],
  "key_disagreements": ["技术面强势与现金流下滑的矛盾"],
  "conflict_resolution": "技术面与估值两位专家的证据强于单一的财务担忧，多方胜出"
}"""


def scripted_llm() -> ScriptedLLM:
    return ScriptedLLM({"BULL ADVOCATE": BULL_JSON, "BEAR ADVOCATE": BEAR_JSON, "RESOLUTION": RESOLUTION_JSON})
