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
from service_kit.languages import ByLanguage
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.numbers.gate import NumbersGate
from shared_contracts.language import Language


@dataclass
class JudgeContainer:
    settings: Settings
    judge_services: ByLanguage[JudgeService]
    """The judge in each report language (a request's ``language``, else REPORT_LANGUAGE)."""
    chat: OpenAICompatibleChat | None = None
    """The LLM client this container opened (closed by ``aclose``)."""

    @property
    def judge_service(self) -> JudgeService:
        """The judge in REPORT_LANGUAGE."""
        return self.judge_services.preferred

    async def readiness(self) -> dict[str, str]:
        return {"judge_service": "ok"}

    async def aclose(self) -> None:
        if self.chat is not None:
            await self.chat.aclose()


def build_container(
    settings: Settings, *, agent: IJudgeAgentPort | None = None, llm_http_client: httpx2.AsyncClient | None = None
) -> JudgeContainer:
    """``agent`` replaces the engine (tests); ``llm_http_client`` the transport of the real LLM client."""
    max_position, default = settings.judge_max_position_percent, settings.report_language

    def policy(language: Language) -> GuardrailPolicy:
        return GuardrailPolicy(max_position_percent=max_position, language=language)

    def rules(language: Language) -> RulesJudgeAgent:
        return RulesJudgeAgent(max_position_percent=max_position, language=language)

    if agent is not None or not settings.uses_llm:

        def plain(language: Language) -> JudgeService:
            return JudgeService(agent or rules(language), policy(language), confidence=calibrated_confidence)

        return JudgeContainer(settings, ByLanguage.build(default, plain))
    chat = build_chat_client(settings, http_client=llm_http_client)
    gate = NumbersGate(settings.llm_numbers_policy)

    def llm(language: Language) -> JudgeService:
        fallback = rules(language).decide
        return JudgeService(
            JudgeAgentAdapter(chat, max_position_percent=max_position, language=language, gate=gate),
            policy(language),
            fallback=(lambda decide: RulesFallback(decide, fallback)) if settings.llm_fallback_to_rules else None,
            confidence=calibrated_confidence,
        )

    return JudgeContainer(settings, ByLanguage.build(default, llm), chat)


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[JudgeContainer]:
    """The container built from ``settings``, closed on exit."""
    async with aclosing(build_container(settings)) as container:
        yield container
