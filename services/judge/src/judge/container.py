"""Composition root: builds the judge engine from settings and wires it into ``JudgeService``.

ANALYSIS_ENGINE (EngineSettings.uses_llm) picks the engine:
- rules: ``RulesJudgeAgent``;
- llm:   ``JudgeAgentAdapter`` on ``LLMAdapter`` (OpenAI-compatible), wrapped in ``FallbackJudgeAgent``
         with the rules engine when LLM_FALLBACK_TO_RULES is set.
Tests pass ``agent=`` (a fake port) or ``llm=`` (a fake/mock-transport LLM) to the same builder."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx2

from judge.application.guardrails import GuardrailPolicy
from judge.application.services.judge_service import JudgeService
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.domain.ports.llm import ILLMPort
from judge.infrastructure.adapters.fallback_judge_agent import FallbackJudgeAgent
from judge.infrastructure.adapters.judge_agent_adapter import JudgeAgentAdapter
from judge.infrastructure.adapters.llm_adapter import LLMAdapter
from judge.infrastructure.adapters.rules.rules_judge_agent import RulesJudgeAgent
from judge.settings import JudgeSettings
from shared_contracts.llm.client import build_chat_client


@dataclass
class JudgeContainer:
    settings: JudgeSettings
    agent: IJudgeAgentPort
    judge_service: JudgeService
    _closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for close in reversed(self._closers):
            await close()
        self._closers.clear()


def build_container(
    settings: JudgeSettings,
    *,
    agent: IJudgeAgentPort | None = None,
    llm: ILLMPort | None = None,
    llm_http_client: httpx2.AsyncClient | None = None,
) -> JudgeContainer:
    closers: list[Callable[[], Awaitable[None]]] = []
    if agent is None:
        agent = _build_agent(settings, llm, llm_http_client, closers)
    policy = GuardrailPolicy(
        max_position_percent=settings.judge_max_position_percent, language=settings.report_language
    )
    return JudgeContainer(settings=settings, agent=agent, judge_service=JudgeService(agent, policy), _closers=closers)


def _build_agent(
    settings: JudgeSettings,
    llm: ILLMPort | None,
    http_client: httpx2.AsyncClient | None,
    closers: list[Callable[[], Awaitable[None]]],
) -> IJudgeAgentPort:
    rules = RulesJudgeAgent(max_position_percent=settings.judge_max_position_percent, language=settings.report_language)
    if not settings.uses_llm:
        return rules
    if llm is None:
        adapter = LLMAdapter(build_chat_client(settings, http_client=http_client))
        closers.append(adapter.aclose)
        llm = adapter
    model = settings.llm_model or "unknown"
    llm_agent = JudgeAgentAdapter(
        llm, model=model, max_position_percent=settings.judge_max_position_percent, language=settings.report_language
    )
    if settings.llm_fallback_to_rules:
        return FallbackJudgeAgent(llm_agent, rules, primary_model=model)
    return llm_agent
