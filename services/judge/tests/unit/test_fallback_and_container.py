"""LLM_FALLBACK_TO_RULES (visible in ``engine``), and the composition root choosing engines by settings."""

from __future__ import annotations

import json

import httpx2
import pytest
from judge_fakes import PRICED, FakeJudgeAgent, RecordingLLMEndpoint, chat_completion, llm_answer, make_input

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.container import build_container
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from judge.settings import Settings
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError
from service_kit.llm.fallback import RulesFallback
from service_kit.settings import ConfigurationError, load_settings
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError

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


def falling_back(agent: FakeJudgeAgent) -> JudgeService:
    return JudgeService(agent, GuardrailPolicy(language="en"), fallback=lambda d: RulesFallback(d, rules().decide))


@pytest.mark.parametrize(
    "error",
    [LLMUnavailableError("down"), LLMTimeoutError("slow"), LLMOutputParseError("not json", raw_output="x")],
)
async def test_fallback_answers_with_rules_and_says_why(error: Exception) -> None:
    verdict = await falling_back(FakeJudgeAgent(error=error)).run(make_input())
    expected = await JudgeService(rules(), GuardrailPolicy(language="en")).run(make_input())
    assert verdict.action is expected.action
    assert verdict.position_percent == expected.position_percent
    assert verdict.engine.kind == "rules"
    assert verdict.engine.fallback_reason is not None
    assert verdict.engine.fallback_reason.startswith(f"{error.code}: ")


async def test_fallback_does_not_hide_bugs() -> None:
    with pytest.raises(RuntimeError, match="bug"):
        await falling_back(FakeJudgeAgent(error=RuntimeError("bug"))).run(make_input())


async def test_fallback_unused_when_the_llm_answers() -> None:
    verdict = await falling_back(FakeJudgeAgent()).run(make_input())
    assert verdict.engine == EngineInfo(kind="llm", model="fake-model")


async def test_rules_engine_is_the_default() -> None:
    container = build_container(Settings())
    assert container.chat is None
    assert (await container.judge_service.run(make_input())).engine == EngineInfo(kind="rules")
    assert container.judge_service.policy.max_position_percent == 30.0


async def test_llm_engine_when_configured_with_fallback_only_when_asked() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion("no JSON here"))
    container = build_container(Settings(**LLM_ENV), llm_http_client=endpoint.client())
    with pytest.raises(LLMOutputParseError):
        await container.judge_service.run(make_input())
    assert endpoint.requests[0]["model"] == "judge-model"
    fallback = build_container(Settings(**LLM_ENV, llm_fallback_to_rules=True), llm_http_client=endpoint.client())
    assert (await fallback.judge_service.run(make_input())).engine.kind == "rules"
    await container.aclose()
    await fallback.aclose()


async def test_container_builds_the_openai_client_and_closes_it() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer())))
    http_client = endpoint.client()
    container = build_container(Settings(**LLM_ENV, judge_max_position_percent=10), llm_http_client=http_client)
    verdict = await container.judge_service.run(make_input(**PRICED))
    assert verdict.engine.model == "judge-model"
    assert verdict.position_percent == 10.0
    assert endpoint.requests[0]["model"] == "judge-model"
    await container.aclose()
    assert http_client.is_closed


async def test_container_falls_back_over_a_failing_endpoint() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: httpx2.Response(503, json={"error": {"message": "overloaded"}}))
    settings = Settings(**LLM_ENV, llm_fallback_to_rules=True, llm_max_retries=0)
    container = build_container(settings, llm_http_client=endpoint.client())
    verdict = await container.judge_service.run(make_input())
    assert verdict.engine.kind == "rules"
    assert verdict.engine.fallback_reason is not None
    assert "llm_unavailable" in verdict.engine.fallback_reason
    await container.aclose()


def test_max_position_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_MAX_POSITION_PERCENT", "12.5")
    assert load_settings(Settings).judge_max_position_percent == 12.5


@pytest.mark.parametrize("value", ["0", "150", "lots"])
def test_bad_max_position_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("JUDGE_MAX_POSITION_PERCENT", value)
    with pytest.raises(ConfigurationError, match="JUDGE_MAX_POSITION_PERCENT"):
        load_settings(Settings)
