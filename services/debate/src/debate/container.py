"""Composition root: the rules engine, or the LLM engine (LLMAdapter → the three agent adapters) with the
rules engine answering a failed LLM debate when LLM_FALLBACK_TO_RULES is set; both wired into DebateService."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass

import httpx2

from debate.application.services.debate_service import DebateService
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.bear_advocate_agent_adapter import BearAdvocateAgentAdapter
from debate.infrastructure.adapters.bull_advocate_agent_adapter import BullAdvocateAgentAdapter
from debate.infrastructure.adapters.llm_adapter import LLMAdapter
from debate.infrastructure.adapters.resolution_agent_adapter import ResolutionAgentAdapter
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from debate.settings import Settings
from service_kit.languages import ByLanguage
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.numbers.gate import NumbersGate
from shared_contracts.engine import EngineInfo
from shared_contracts.language import Language


@dataclass
class DebateContainer:
    settings: Settings
    debate_services: ByLanguage[DebateService]
    """The debate in each report language (a request's ``language``, else REPORT_LANGUAGE)."""
    chat: OpenAICompatibleChat | None = None
    """The LLM client this container opened (closed by ``aclose``)."""

    @property
    def debate_service(self) -> DebateService:
        """The debate in REPORT_LANGUAGE."""
        return self.debate_services.preferred

    async def readiness(self) -> dict[str, str]:
        return {"debate_service": "ok", f"engine_{self.debate_service.engine.kind}": "ok"}

    async def aclose(self) -> None:
        if self.chat is not None:
            await self.chat.aclose()


def build_container(
    settings: Settings, *, llm: ILLMPort | None = None, llm_http_client: httpx2.AsyncClient | None = None
) -> DebateContainer:
    """``llm`` replaces the LLM port (tests); ``llm_http_client`` the transport of the real client."""
    rules = ByLanguage.build(settings.report_language, _rules_debate)
    if not settings.uses_llm:
        return DebateContainer(settings, rules)
    chat = None
    if llm is None:
        chat = build_chat_client(settings, http_client=llm_http_client)
        llm = LLMAdapter(chat)
    port, gate = llm, NumbersGate(settings.llm_numbers_policy)

    def llm_debate(language: Language) -> DebateService:
        fallback = rules.each[language].run
        return DebateService(
            BullAdvocateAgentAdapter(port, language, gate),
            BearAdvocateAgentAdapter(port, language, gate),
            ResolutionAgentAdapter(port, language, gate),
            EngineInfo(kind="llm", model=settings.llm_model),
            fallback=(lambda debate: RulesFallback(debate, fallback)) if settings.llm_fallback_to_rules else None,
            language=language,
        )

    return DebateContainer(settings, ByLanguage.build(settings.report_language, llm_debate), chat)


def _rules_debate(language: Language) -> DebateService:
    return DebateService(
        RulesBullAdvocateAgent(language),
        RulesBearAdvocateAgent(language),
        RulesResolutionAgent(language),
        EngineInfo(kind="rules"),
        language=language,
    )


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[DebateContainer]:
    """The container built from ``settings``, closed on exit."""
    async with aclosing(build_container(settings)) as container:
        yield container
