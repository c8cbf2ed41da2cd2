"""The LLM adapter shared by the five experts: prompt files + facts → OpenAI-compatible chat (JSON
mode) → the expert's verdict model. Output that is not the promised JSON raises LLMOutputParseError."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from research.domain.analysis.catalyst import CatalystFacts
from research.domain.model.verdicts import AgentAnswer
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language
from service_kit.llm.client import OpenAICompatibleChat
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.json_output import parse_model_output
from service_kit.llm.numbers.gate import NumbersGate
from service_kit.llm.numbers.sources import sources_from
from service_kit.llm.prompts import PromptTemplate, fence_untrusted
from service_kit.llm.tracing import model_call_stage
from shared_contracts.engine import EngineInfo
from shared_contracts.text import NO_SPECIFIC_RISK

F = TypeVar("F")
V = TypeVar("V", bound=BaseModel)

AGENTS_DIR = Path(__file__).parent
LANGUAGE_NAMES: dict[Language, str] = {"zh": "简体中文 (Simplified Chinese)", "en": "English"}
NEWS_MAX_CHARS = 6000
NEWS_ITEM_MAX_CHARS = 600
TEMPERATURE = 0.2


def facts_json(facts: object) -> dict[str, str]:
    return {"facts": json.dumps(to_jsonable_python(facts, inf_nan_mode="null"), ensure_ascii=False, sort_keys=True)}


def catalyst_slots(facts: CatalystFacts) -> dict[str, str]:
    """News is untrusted text: it goes in fenced and size-capped, never among the detected events."""
    data = to_jsonable_python(facts, exclude={"news", "events"}, inf_nan_mode="null")
    detected = [e for e in facts.events if e.kind != "news"]  # headlines only in the fence
    data["events"] = to_jsonable_python(detected, inf_nan_mode="null")
    lines = [
        f"- [{n.published_at.date().isoformat()}] {n.source}: {n.title} — {n.summary}"[:NEWS_ITEM_MAX_CHARS]
        for n in facts.news
    ]
    news = fence_untrusted("NEWS", "\n".join(lines) or "(no news available)", NEWS_MAX_CHARS)
    return {"facts": json.dumps(data, ensure_ascii=False, sort_keys=True), "news": news}


class LLMExpertAgent(ExpertAgent[F, V], Generic[F, V]):
    def __init__(
        self,
        chat: OpenAICompatibleChat,
        expert: str,
        verdict_model: type[V],
        language: Language = "zh",
        slots: Callable[[F], dict[str, str]] = facts_json,
        gate: NumbersGate | None = None,
        fallback: ExpertAgent[F, V] | None = None,
    ) -> None:
        """``fallback``: the agent that answers when the model fails (``RulesFallback``: ``engine.fallback_reason``
        says why); None lets the failure propagate."""
        self._analyse = RulesFallback(self._ask, fallback.analyse) if fallback else self._ask
        self._chat = chat
        self._expert = expert
        self._gate = gate or NumbersGate()
        self._template = PromptTemplate.load(AGENTS_DIR / expert / "prompts")
        self._model = verdict_model
        self._language = language
        self._slots = slots

    async def analyse(self, facts: F) -> AgentAnswer[V]:
        return await self._analyse(facts)

    async def _ask(self, facts: F) -> AgentAnswer[V]:
        """The model's verdict, its texts through the numbers gate (traced to the prompt's figures)."""
        system, user = self._template.render(language=LANGUAGE_NAMES[self._language], **self._slots(facts))

        async def ask_again(instruction: str) -> V:
            again = await self._chat.complete(user + instruction, system, TEMPERATURE)
            return parse_model_output(again.text, self._model)

        # an answer cut off at its length limit is refused by the client, with what the model wrote
        with model_call_stage(self._expert):
            completion = await self._chat.complete(user, system, TEMPERATURE)
            verdict = parse_model_output(completion.text, self._model)
            verdict, check = await self._gate.review(verdict, sources_from([system, user]), ask_again)
        engine = EngineInfo(kind="llm", model=completion.model)
        return AgentAnswer(_risk_said(verdict, self._language), engine, user, completion.text, numbers_check=check)


def _risk_said(verdict: V, language: Language) -> V:
    """A blank ``risk_warning`` and an empty risk list (``risk_factors``, ``key_risks``) say, in words, that no
    specific risk was seen (a risk field is never empty)."""
    said = NO_SPECIFIC_RISK[language]
    update: dict[str, object] = {}
    warning = getattr(verdict, "risk_warning", None)
    if isinstance(warning, str) and not warning.strip():
        update["risk_warning"] = said
    for field in ("risk_factors", "key_risks"):
        risks = getattr(verdict, field, None)
        if isinstance(risks, list) and not any(isinstance(r, str) and r.strip() for r in risks):
            update[field] = [said]
    return verdict.model_copy(update=update) if update else verdict
