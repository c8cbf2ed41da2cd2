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
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.numbers.gate import NumbersGate
from shared_contracts.engine import EngineInfo


@dataclass
class DebateContainer:
    settings: Settings
    debate_service: DebateService
    chat: OpenAICompatibleChat | None = None
    """The LLM client this container opened (closed by ``aclose``)."""

    async def readiness(self) -> dict[str, str]:
        return {"debate_service": "ok", f"engine_{self.debate_service.engine.kind}": "ok"}

    async def aclose(self) -> None:
        if self.chat is not None:
            await self.chat.aclose()


def build_container(
    settings: Settings, *, llm: ILLMPort | None = None, llm_http_client: httpx2.AsyncClient | None = None
) -> DebateContainer:
    """``llm`` replaces the LLM port (tests); ``llm_http_client`` the transport of the real client."""
    language = settings.report_language
    rules = DebateService(
        RulesBullAdvocateAgent(language),
        RulesBearAdvocateAgent(language),
        RulesResolutionAgent(language),
        EngineInfo(kind="rules"),
        language=language,
    )
    if not settings.uses_llm:
        return DebateContainer(settings, rules)
    chat = None
    if llm is None:
        chat = build_chat_client(settings, http_client=llm_http_client)
        llm = LLMAdapter(chat)
    gate = NumbersGate(settings.llm_numbers_policy)
    service = DebateService(
        BullAdvocateAgentAdapter(llm, language, gate),
        BearAdvocateAgentAdapter(llm, language, gate),
        ResolutionAgentAdapter(llm, language, gate),
        EngineInfo(kind="llm", model=settings.llm_model),
        fallback=(lambda debate: RulesFallback(debate, rules.run)) if settings.llm_fallback_to_rules else None,
        language=language,
    )
    return DebateContainer(settings, service, chat)


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[DebateContainer]:
    """The container built from ``settings``, closed on exit."""
    async with aclosing(build_container(settings)) as container:
        yield container
