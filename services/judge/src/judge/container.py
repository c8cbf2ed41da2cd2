"""Composition root: the rules judge (``RulesJudgeAgent``), or the LLM judge (``JudgeAgentAdapter`` on the
OpenAI-compatible client) answered by the rules judge when it fails and LLM_FALLBACK_TO_RULES is set; either
wired into ``JudgeService`` with the guardrail policy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass

import httpx2

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.infrastructure.adapters.judge_agent_adapter import JudgeAgentAdapter
from judge.infrastructure.calibration.verdict_confidence import calibrated_confidence
from judge.infrastructure.rules.rules_judge_agent import RulesJudgeAgent
from judge.settings import Settings
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.numbers.gate import NumbersGate


@dataclass
class JudgeContainer:
    settings: Settings
    judge_service: JudgeService
    chat: OpenAICompatibleChat | None = None
    """The LLM client this container opened (closed by ``aclose``)."""

    async def readiness(self) -> dict[str, str]:
        return {"judge_service": "ok"}

    async def aclose(self) -> None:
        if self.chat is not None:
            await self.chat.aclose()


def build_container(
    settings: Settings, *, agent: IJudgeAgentPort | None = None, llm_http_client: httpx2.AsyncClient | None = None
) -> JudgeContainer:
    """``agent`` replaces the engine (tests); ``llm_http_client`` the transport of the real LLM client."""
    max_position, language = settings.judge_max_position_percent, settings.report_language
    policy = GuardrailPolicy(max_position_percent=max_position, language=language)
    if agent is not None:
        return JudgeContainer(settings, JudgeService(agent, policy, confidence=calibrated_confidence))
    rules = RulesJudgeAgent(max_position_percent=max_position, language=language)
    if not settings.uses_llm:
        return JudgeContainer(settings, JudgeService(rules, policy, confidence=calibrated_confidence))
    chat = build_chat_client(settings, http_client=llm_http_client)
    service = JudgeService(
        JudgeAgentAdapter(
            chat,
            max_position_percent=max_position,
            language=language,
            gate=NumbersGate(settings.llm_numbers_policy),
        ),
        policy,
        fallback=(lambda decide: RulesFallback(decide, rules.decide)) if settings.llm_fallback_to_rules else None,
        confidence=calibrated_confidence,
    )
    return JudgeContainer(settings, service, chat)


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[JudgeContainer]:
    """The container built from ``settings``, closed on exit."""
    async with aclosing(build_container(settings)) as container:
        yield container
