"""RulesFallback: the rules engine answers when the LLM fails, and the answer says why."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from service_kit.llm.errors import LLMTimeoutError
from service_kit.llm.fallback import RulesFallback
from shared_contracts.engine import EngineInfo
from shared_contracts.errors import LLMOutputParseError


@dataclass(frozen=True)
class Plain:
    text: str
    engine: EngineInfo


class Modelled(BaseModel):
    text: str
    engine: EngineInfo


async def _rules(text: str) -> Plain:
    return Plain(text, EngineInfo(kind="rules"))


async def test_the_llm_answer_is_kept_when_it_succeeds() -> None:
    async def llm(text: str) -> Plain:
        return Plain(text.upper(), EngineInfo(kind="llm", model="m"))

    assert await RulesFallback(llm, _rules)("x") == Plain("X", EngineInfo(kind="llm", model="m"))


@pytest.mark.parametrize("error", [LLMTimeoutError("no answer in 30s"), LLMOutputParseError("not JSON", "prose")])
async def test_an_llm_failure_is_answered_by_the_rules_saying_why(error: Exception) -> None:
    async def llm(_text: str) -> Plain:
        raise error

    answer = await RulesFallback(llm, _rules)("x")
    assert answer.text == "x"
    assert answer.engine.kind == "rules"
    assert answer.engine.fallback_reason == f"{error.code}: {error}"


async def test_a_pydantic_answer_is_marked_too_and_a_bug_is_not_hidden() -> None:
    async def llm(_text: str) -> Modelled:
        raise LLMTimeoutError("slow")

    async def rules(text: str) -> Modelled:
        return Modelled(text=text, engine=EngineInfo(kind="rules"))

    assert (await RulesFallback(llm, rules)("x")).engine.fallback_reason == "llm_timeout: slow"

    async def buggy(_text: str) -> Modelled:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        await RulesFallback(buggy, rules)("x")
