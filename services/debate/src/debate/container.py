"""Composition root: builds the debate's adapters from settings and wires them into DebateService.

- rules engine (default without an LLM): RulesBull/RulesBear/RulesResolution agents → DebateService.
- LLM engine (``EngineSettings.uses_llm``): LLMAdapter → BullAdvocateAgentAdapter, BearAdvocateAgentAdapter,
  ResolutionAgentAdapter → DebateService; with LLM_FALLBACK_TO_RULES=true a failed LLM debate is answered by
  the rules engine and the outcome's ``engine.fallback_reason`` says why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx2

from debate.application.services.debate_service import DebateService
from debate.domain.exceptions import LLMOutputParseError
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.bear_advocate_agent_adapter import BearAdvocateAgentAdapter
from debate.infrastructure.adapters.bull_advocate_agent_adapter import BullAdvocateAgentAdapter
from debate.infrastructure.adapters.llm_adapter import LLMAdapter
from debate.infrastructure.adapters.resolution_agent_adapter import ResolutionAgentAdapter
from debate.infrastructure.rules.advocates import RulesBearAdvocateAgent, RulesBullAdvocateAgent
from debate.infrastructure.rules.resolution import RulesResolutionAgent
from shared_contracts.engine import EngineInfo
from shared_contracts.llm.client import build_chat_client
from shared_contracts.llm.errors import LLMError
from shared_contracts.service.settings import EngineSettings


class Settings(EngineSettings):
    """The debate's configuration (environment / .env); every variable is listed in the README."""


@dataclass
class DebateContainer:
    settings: Settings
    debate_service: DebateService
    llm: ILLMPort | None = None
    _closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for close in self._closers:
            await close()


def build_rules_service(settings: Settings) -> DebateService:
    language = settings.report_language
    return DebateService(
        RulesBullAdvocateAgent(language),
        RulesBearAdvocateAgent(language),
        RulesResolutionAgent(language),
        EngineInfo(kind="rules"),
    )


def build_container(
    settings: Settings,
    *,
    llm: ILLMPort | None = None,
    llm_http_client: httpx2.AsyncClient | None = None,
) -> DebateContainer:
    """``llm`` replaces the LLM port (tests); ``llm_http_client`` the transport of the real LLMAdapter."""
    rules = build_rules_service(settings)
    if not settings.uses_llm:
        return DebateContainer(settings=settings, debate_service=rules)
    closers: list[Callable[[], Awaitable[None]]] = []
    if llm is None:
        adapter = LLMAdapter(build_chat_client(settings, http_client=llm_http_client))
        closers.append(adapter.aclose)
        llm = adapter
    language = settings.report_language
    fallback = settings.llm_fallback_to_rules
    service = DebateService(
        BullAdvocateAgentAdapter(llm, language),
        BearAdvocateAgentAdapter(llm, language),
        ResolutionAgentAdapter(llm, language),
        EngineInfo(kind="llm", model=settings.llm_model),
        fallback=rules if fallback else None,
        fallback_on=(LLMError, LLMOutputParseError) if fallback else (),
    )
    return DebateContainer(settings=settings, debate_service=service, llm=llm, _closers=closers)
