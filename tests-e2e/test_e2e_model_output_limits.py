"""Model output beyond its size limits is refused (``llm_output_invalid``) and never answered or stored: a real
judge process whose OpenAI-compatible endpoint names a 10 MB model, or writes a 50,000-character reasoning."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import OneReplyChatHandler, chat_completion_body, serving_chat

from service_kit.stack.launcher import ServiceProcess, running_service

pytestmark = pytest.mark.e2e

VERDICT = {
    "action": "BUY",
    "position_percent": 10,
    "confidence": 0.6,
    "entry_strategy": "Buy on weakness.",
    "stop_loss_percent": 8,
    "take_profit_percent": 15,
    "time_horizon": "MEDIUM_TERM",
    "risk_warnings": ["Volatile."],
    "reasoning": "The bull case is stronger.",
}
JUDGE_INPUT = {
    "symbol": "600519.SH",
    "direction": "BULLISH",
    "confidence": 0.6,
    "bull_thesis": "Margins are widening.",
    "bear_thesis": "The valuation is stretched.",
}


class _OversizeLLM(OneReplyChatHandler):
    model = "fake-model"
    verdict: dict[str, object] = VERDICT

    def reply(self, api_key: str) -> tuple[int, dict[str, Any]]:
        return 200, chat_completion_body(json.dumps(self.verdict), model=self.model)


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    workdir = tmp_path_factory.mktemp("e2e-model-output")
    with serving_chat(_OversizeLLM) as llm:
        llm_env = {"LLM_BASE_URL": llm, "LLM_API_KEY": "sk-test-oversize", "LLM_MODEL": "fake-model"}
        with running_service("judge", workdir, ANALYSIS_ENGINE="llm", LLM_MAX_RETRIES="0", **llm_env) as judge:
            yield judge


def _verdict(judge: ServiceProcess) -> httpx.Response:
    return httpx.post(f"{judge.url}/api/v1/judge/verdict", json=JUDGE_INPUT, timeout=60)


def test_a_reply_within_the_limits_is_a_verdict(judge: ServiceProcess) -> None:
    _OversizeLLM.model, _OversizeLLM.verdict = "fake-model", VERDICT
    assert _verdict(judge).status_code == 200


def test_a_10_mb_model_name_is_refused_and_not_echoed(judge: ServiceProcess) -> None:
    _OversizeLLM.model, _OversizeLLM.verdict = "m" * 10 * 1024 * 1024, VERDICT
    answer = _verdict(judge)
    assert (answer.status_code, answer.json()["code"]) == (500, "llm_output_invalid")
    assert len(answer.content) < 4096
    _OversizeLLM.model = "fake-model"


def test_a_50000_character_reasoning_is_refused(judge: ServiceProcess) -> None:
    _OversizeLLM.verdict = {**VERDICT, "reasoning": "<script>alert(1)</script>" + "x" * 50_000}
    answer = _verdict(judge)
    assert (answer.status_code, answer.json()["code"]) == (500, "llm_output_invalid")
    assert "reasoning is 50025 characters" in answer.json()["detail"]
    assert len(answer.json().get("raw_output_excerpt", "")) <= 1000
    _OversizeLLM.verdict = VERDICT
