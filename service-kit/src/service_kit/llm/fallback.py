"""LLM first, rules when the LLM fails (``LLM_FALLBACK_TO_RULES``), in every service: the answer then
comes from the rules engine and its ``engine.fallback_reason`` says why. Never silent.

Example::

    decide = RulesFallback(llm_agent.decide, rules_agent.decide)
    proposal = await decide(judge_input)   # the LLM's, or the rules' with engine.fallback_reason set
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

import structlog
from pydantic import BaseModel

from service_kit.llm.errors import LLMError
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError

log = structlog.get_logger(__name__)

FALLBACK_ERRORS = (LLMError, LLMOutputParseError)
"""What the rules engine stands in for: the LLM call failed, or its answer could not be read."""
REASON_MAX_CHARS = 500


class Answer(Protocol):
    """An engine's answer: a dataclass or a pydantic model with an ``engine`` field."""

    @property
    def engine(self) -> EngineInfo: ...


In = TypeVar("In")
Out = TypeVar("Out", bound=Answer)


def with_fallback_reason(answer: Out, reason: str) -> Out:
    """The same answer, its ``engine`` marked with why the rules engine gave it."""
    engine = answer.engine.model_copy(update={"fallback_reason": reason[:REASON_MAX_CHARS]})
    if isinstance(answer, BaseModel):
        return answer.model_copy(update={"engine": engine})
    changed: Any = dataclasses.replace(answer, engine=engine)  # type: ignore[type-var]
    return changed  # type: ignore[no-any-return]


class RulesFallback(Generic[In, Out]):
    """Calls ``llm``; when it raises one of ``FALLBACK_ERRORS``, calls ``rules`` with the same input."""

    def __init__(self, llm: Callable[[In], Awaitable[Out]], rules: Callable[[In], Awaitable[Out]]) -> None:
        self._llm = llm
        self._rules = rules

    async def __call__(self, given: In) -> Out:
        try:
            return await self._llm(given)
        except FALLBACK_ERRORS as exc:
            reason = f"{exc.code}: {exc}"
            log.warning("llm_fallback_to_rules", reason=reason)
        return with_fallback_reason(await self._rules(given), reason)
