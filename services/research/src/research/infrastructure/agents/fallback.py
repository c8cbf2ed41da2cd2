"""LLM first, rules when the LLM fails (LLM_FALLBACK_TO_RULES): the fallback is stated in the result."""

from __future__ import annotations

from dataclasses import replace
from typing import Generic, TypeVar

import structlog
from pydantic import BaseModel

from research.domain.exceptions import LLMOutputParseError
from research.domain.model.verdicts import AgentAnswer
from research.domain.ports.agents import ExpertAgent
from shared_contracts.llm.errors import LLMError

F = TypeVar("F")
V = TypeVar("V", bound=BaseModel)
log = structlog.get_logger(__name__)


class FallbackAgent(ExpertAgent[F, V], Generic[F, V]):
    def __init__(self, primary: ExpertAgent[F, V], fallback: ExpertAgent[F, V]) -> None:
        self._primary = primary
        self._fallback = fallback

    async def analyse(self, facts: F) -> AgentAnswer[V]:
        try:
            return await self._primary.analyse(facts)
        except (LLMError, LLMOutputParseError) as exc:
            reason = f"{exc.code}: {exc}"
            log.warning("llm_fallback_to_rules", reason=reason)
            answer = await self._fallback.analyse(facts)
            return replace(answer, engine=answer.engine.model_copy(update={"fallback_reason": reason}))
