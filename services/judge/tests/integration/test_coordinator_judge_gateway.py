"""The coordinator's JudgeGatewayAdapter against this service, in-process (ASGI transport, lifespan entered).

Covers the coordinator spec's JudgeGatewayAdapter scenarios end to end: bull/bear thesis extraction,
risk_factors holding only the risk strings, the verdict returned as a dict; plus what must never reach
the judge (supporting arguments, acknowledged risks/strengths, probability/impact/mitigation)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pytest
from contract_testkit import VERDICT_FIELDS
from judge_fakes import FakeJudgeAgent, RecordingLLMEndpoint, SpyJudgeAgent, chat_completion, llm_answer

from judge.container import build_container
from judge.domain.model.enums import Direction
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.infrastructure.adapters.judge_agent_adapter import JudgeAgentAdapter
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from judge.main import create_app
from judge.settings import Settings
from shared_contracts.debate import DebateOutcome
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.judge import Verdict

gateway_module = pytest.importorskip(
    "coordinator.infrastructure.adapters.judge_gateway_adapter",
    reason="the coordinator's JudgeGatewayAdapter is not in the tree yet",
)
peer_http = pytest.importorskip("coordinator.infrastructure.adapters.peer_http")
coordinator_exceptions = pytest.importorskip("coordinator.domain.exceptions")

JUDGE_URL = "http://judge.test"
FILTERED = ("低估证据-PE分位", "多头承认的风险-库存", "空头证据-订单下滑", "空头承认的优势-品牌", "对冲缓释-分批")


def debate_outcome(**overrides: Any) -> dict[str, Any]:
    outcome = DebateOutcome.model_validate(
        {
            "symbol": "600519.SH",
            "direction": "BULLISH",
            "confidence": 0.78,
            "bull_case": {
                "core_thesis": "估值低于内在价值",
                "supporting_arguments": [
                    {
                        "argument": "估值",
                        "evidence": FILTERED[0],
                        "source_experts": ["valuation_modeler"],
                        "strength": "HIGH",
                    },
                ],
                "acknowledged_risks": [FILTERED[1]],
            },
            "bear_case": {
                "core_thesis": "行业景气度下行",
                "supporting_arguments": [
                    {
                        "argument": "需求",
                        "evidence": FILTERED[2],
                        "source_experts": ["macro_intelligence"],
                        "strength": "MEDIUM",
                    },
                ],
                "acknowledged_strengths": [FILTERED[3]],
            },
            "risk_matrix": [
                {"risk": "需求放缓", "probability": "HIGH", "impact": "HIGH", "mitigation": FILTERED[4]},
                {"risk": "政策风险", "probability": "MEDIUM", "impact": "HIGH", "mitigation": "关注监管"},
                {"risk": "汇率波动", "probability": "LOW", "impact": "MEDIUM", "mitigation": "外汇对冲"},
            ],
            "key_disagreements": ["估值是否合理"],
            "conflict_resolution": "多头略占优",
            "engine": {"kind": "rules"},
        }
    ).model_dump(mode="json")
    outcome.update(overrides)
    return outcome


class JudgeHarness:
    def __init__(self, agent: IJudgeAgentPort) -> None:
        self.spy = SpyJudgeAgent(agent)
        settings = Settings(analysis_engine="rules", log_json=False, _env_file=None)  # type: ignore[call-arg]
        self.app = create_app(settings, container=build_container(settings, agent=self.spy))

    async def run(self) -> AsyncIterator[Any]:
        async with self.app.router.lifespan_context(self.app):
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport) as client:
                peer = peer_http.PeerClient("judge", JUDGE_URL, client, peer_http.CallPolicy(budget_seconds=10))
                yield gateway_module.JudgeGatewayAdapter(peer)


async def run_verdict(
    agent: IJudgeAgentPort, outcome: dict[str, Any], context: dict[str, Any] | None = None
) -> tuple[dict[str, Any], JudgeHarness]:
    harness = JudgeHarness(agent)
    async for adapter in harness.run():
        return await adapter.run_verdict("600519.SH", outcome, context), harness
    raise AssertionError("unreachable")


def rules() -> RulesJudgeAgent:
    return RulesJudgeAgent(max_position_percent=30.0, language="zh")


async def test_bull_and_bear_thesis_are_extracted() -> None:
    _verdict, harness = await run_verdict(rules(), debate_outcome())
    (received,) = harness.spy.received
    assert received.bull_thesis == "估值低于内在价值"
    assert received.bear_thesis == "行业景气度下行"
    assert received.direction is Direction.BULLISH
    assert received.confidence == 0.78
    assert received.key_disagreements == ["估值是否合理"]
    assert received.conflict_resolution == "多头略占优"


async def test_risk_factors_are_only_the_risk_strings() -> None:
    _verdict, harness = await run_verdict(rules(), debate_outcome())
    (received,) = harness.spy.received
    assert received.risk_factors == ["需求放缓", "政策风险", "汇率波动"]
    everything = json.dumps([str(v) for v in vars(received).values()], ensure_ascii=False)
    for detail in ("HIGH", "MEDIUM", "LOW", "关注监管", "外汇对冲", *FILTERED):
        assert detail not in everything


PRICED_CONTEXT = {
    "expert_results": {
        "technical_analyst": {"as_of": "2025-09-30", "technical_indicators": {"close": 100.0, "atr14": 2.0}}
    }
}


async def test_the_verdict_comes_back_as_a_dict() -> None:
    verdict, _harness = await run_verdict(rules(), debate_outcome(), PRICED_CONTEXT)
    assert isinstance(verdict, dict)
    parsed = Verdict.model_validate(verdict)
    assert parsed.symbol == "600519.SH"
    assert parsed.action == "BUY"  # BULLISH at 0.78 ≥ 0.60
    assert parsed.position_percent == 4.5  # 1 % × (0.78 − 0.5)/0.5 × (1 − 0.1 × 3) at risk ÷ the 8 % stop = 4.9
    assert parsed.engine == EngineInfo(kind="rules")
    assert set(verdict) >= {"symbol", *VERDICT_FIELDS}
    assert verdict["risk_warnings"][:3] == ["需求放缓", "政策风险", "汇率波动"]


async def test_filtered_debate_details_never_reach_the_llm_prompt() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer(), ensure_ascii=False)))
    agent = JudgeAgentAdapter(endpoint.chat(), max_position_percent=30.0, language="zh")
    verdict, _harness = await run_verdict(agent, debate_outcome())
    assert len(endpoint.requests) == 1
    prompt, system = endpoint.messages()["user"], endpoint.messages()["system"]
    for kept in (
        "估值低于内在价值",
        "行业景气度下行",
        "需求放缓",
        "政策风险",
        "汇率波动",
        "估值是否合理",
        "多头略占优",
    ):
        assert kept in prompt
    for dropped in (*FILTERED, "关注监管", "外汇对冲", "valuation_modeler", "probability", "mitigation"):
        assert dropped not in prompt + system
    assert verdict["engine"]["kind"] == "llm"


async def test_a_hold_names_the_close_its_levels_are_set_from_and_that_they_apply_only_if_entering() -> None:
    context = {
        "expert_results": {
            "technical_analyst": {"as_of": "2025-09-30", "technical_indicators": {"close": 1450.0049}},
        }
    }
    verdict, _ = await run_verdict(rules(), debate_outcome(direction="NEUTRAL", confidence=0.3), context)
    assert verdict["action"] == "HOLD"
    assert verdict["entry_strategy"].endswith("止损/止盈位仅在入场时适用，按 2025-09-30 的收盘价 1450.00 计算。")
    assert (verdict["reference_price"], verdict["reference_date"]) == (1450.0, "2025-09-30")  # at the 0.01 tick
    for level in (verdict["stop_loss"], verdict["take_profit"]):
        assert level["price"] == pytest.approx(1450.0 * (1 + level["percent_from_entry"] / 100), abs=0.006)


async def test_technical_price_context_makes_levels_absolute() -> None:
    context = {
        "expert_results": {
            "technical_analyst": {
                "signal": "BULLISH",
                "as_of": "2025-09-30",
                "technical_indicators": {"close": 100.0, "atr14": 2.0},
                "key_technical_levels": {"support": [95.0, 90.0], "resistance": [112.0]},
            }
        }
    }
    verdict, harness = await run_verdict(rules(), debate_outcome(), context)
    (received,) = harness.spy.received
    assert received.reference_price == 100.0
    assert received.reference_date == date(2025, 9, 30)
    assert received.key_levels.support == [95.0, 90.0]
    assert "2025-09-30" in verdict["entry_strategy"]  # the day the levels are anchored to
    assert verdict["stop_loss"]["price"] == pytest.approx(94.5)  # 0.25 ATR below support 95 (2.5 ATR: long band)
    assert verdict["take_profit"]["price"] == pytest.approx(112.0)  # resistance


async def test_a_verdict_off_the_debates_side_reaches_the_coordinator_as_a_hold() -> None:
    verdict, _harness = await run_verdict(FakeJudgeAgent(), debate_outcome(direction="BEARISH", confidence=0.8))
    assert (verdict["action"], verdict["position_percent"]) == ("HOLD", 0.0)
    assert [note["rule"] for note in verdict["guardrail_adjustments"]] == ["debate_side"]


async def test_an_unusable_engine_answer_reaches_the_coordinator_as_a_peer_error() -> None:
    error = LLMOutputParseError("the model output is not a JSON object", raw_output="I'd buy")
    with pytest.raises(coordinator_exceptions.PeerResponseError) as raised:
        await run_verdict(FakeJudgeAgent(error=error), debate_outcome())
    assert raised.value.status == 500
    assert raised.value.peer_code == "llm_output_invalid"
