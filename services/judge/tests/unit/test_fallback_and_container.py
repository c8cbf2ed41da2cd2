"""LLM_FALLBACK_TO_RULES (visible in ``engine``), and the composition root choosing engines by settings."""

from __future__ import annotations

import json

import httpx2
import pytest
from judge_fakes import FakeJudgeAgent, FakeLLM, RecordingLLMEndpoint, chat_completion, llm_answer, make_input

from judge.container import build_container
from judge.domain.exceptions import LLMOutputParseError
from judge.infrastructure.adapters.fallback_judge_agent import FallbackJudgeAgent
from judge.infrastructure.adapters.judge_agent_adapter import JudgeAgentAdapter
from judge.infrastructure.adapters.rules.rules_judge_agent import RulesJudgeAgent
from judge.settings import JudgeSettings
from shared_contracts.llm.errors import LLMTimeoutError, LLMUnavailableError
from shared_contracts.service.settings import ConfigurationError, load_settings

LLM_ENV = {"analysis_engine": "llm", "llm_base_url": "http://llm.test/v1", "llm_model": "judge-model"}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """Settings come from the environment (and .env): run each test without the developer's."""
    for name in ("ANALYSIS_ENGINE", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_FALLBACK_TO_RULES",
                 "JUDGE_MAX_POSITION_PERCENT", "REPORT_LANGUAGE"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]


def rules() -> RulesJudgeAgent:
    return RulesJudgeAgent(max_position_percent=30.0, language="en")


@pytest.mark.parametrize(
    "error",
    [LLMUnavailableError("down"), LLMTimeoutError("slow"), LLMOutputParseError("not json", raw_output="x")],
)
async def test_fallback_answers_with_rules_and_says_why(error: Exception) -> None:
    agent = FallbackJudgeAgent(FakeJudgeAgent(error=error), rules(), primary_model="judge-model")
    proposal = await agent.decide(make_input())
    expected = await rules().decide(make_input())
    assert proposal.action is expected.action
    assert proposal.position_percent == expected.position_percent
    assert proposal.engine.kind == "rules"
    assert proposal.engine.fallback_reason is not None
    assert error.code in proposal.engine.fallback_reason
    assert "judge-model" in proposal.engine.fallback_reason


async def test_fallback_does_not_hide_bugs() -> None:
    agent = FallbackJudgeAgent(FakeJudgeAgent(error=RuntimeError("bug")), rules(), primary_model="m")
    with pytest.raises(RuntimeError, match="bug"):
        await agent.decide(make_input())


async def test_fallback_unused_when_the_llm_answers() -> None:
    primary = FakeJudgeAgent()
    proposal = await FallbackJudgeAgent(primary, rules(), primary_model="m").decide(make_input())
    assert proposal is primary.proposal


def test_rules_engine_is_the_default() -> None:
    container = build_container(JudgeSettings())
    assert isinstance(container.agent, RulesJudgeAgent)
    assert container.judge_service.policy.max_position_percent == 30.0


def test_llm_engine_when_configured() -> None:
    container = build_container(JudgeSettings(**LLM_ENV), llm=FakeLLM())
    assert isinstance(container.agent, JudgeAgentAdapter)


def test_llm_engine_with_fallback_when_asked() -> None:
    container = build_container(JudgeSettings(**LLM_ENV, llm_fallback_to_rules=True), llm=FakeLLM())
    assert isinstance(container.agent, FallbackJudgeAgent)


async def test_container_builds_the_openai_client_and_closes_it() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer())))
    http_client = endpoint.client()
    container = build_container(JudgeSettings(**LLM_ENV, judge_max_position_percent=10), llm_http_client=http_client)
    verdict = await container.judge_service.run(make_input())
    assert verdict.engine.model == "judge-model"
    assert verdict.position_percent == 10.0
    assert endpoint.requests[0]["model"] == "judge-model"
    await container.aclose()
    assert http_client.is_closed


async def test_container_falls_back_over_a_failing_endpoint() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: httpx2.Response(503, json={"error": {"message": "overloaded"}}))
    settings = JudgeSettings(**LLM_ENV, llm_fallback_to_rules=True, llm_max_retries=0)
    container = build_container(settings, llm_http_client=endpoint.client())
    verdict = await container.judge_service.run(make_input())
    assert verdict.engine.kind == "rules"
    assert verdict.engine.fallback_reason is not None
    assert "llm_unavailable" in verdict.engine.fallback_reason
    await container.aclose()


def test_max_position_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_MAX_POSITION_PERCENT", "12.5")
    assert load_settings(JudgeSettings).judge_max_position_percent == 12.5


@pytest.mark.parametrize("value", ["0", "150", "lots"])
def test_bad_max_position_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("JUDGE_MAX_POSITION_PERCENT", value)
    with pytest.raises(ConfigurationError, match="JUDGE_MAX_POSITION_PERCENT"):
        load_settings(JudgeSettings)
