"""What the three LLM agent adapters share: load system.md + user.md, fill the slots, call
ILLMPort.generate(prompt, system_message, temperature), parse the JSON answer."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeVar

import structlog
from pydantic import BaseModel

from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.agents.output_parser import parse_agent_output
from debate.infrastructure.agents.prompt_blocks import LANGUAGE_NAMES
from shared_contracts.llm.prompts import PromptTemplate

M = TypeVar("M", bound=BaseModel)

PROMPTS_ROOT = Path(__file__).resolve().parent.parent / "agents"

log = structlog.get_logger(__name__)


class PromptedAgent:
    """``agent`` names the prompts folder ``infrastructure/agents/<agent>/prompts/``."""

    def __init__(self, llm: ILLMPort, *, agent: str, temperature: float, language: Literal["zh", "en"]) -> None:
        self._llm = llm
        self._agent = agent
        self._temperature = temperature
        self._language = language
        self._template = PromptTemplate.load(PROMPTS_ROOT / agent / "prompts")

    async def _ask(self, model: type[M], **slots: str) -> tuple[M, str]:
        """Return the parsed answer and the raw text (for further validation)."""
        system, user = self._template.render(language=LANGUAGE_NAMES[self._language], **slots)
        raw = await self._llm.generate(user, system, self._temperature)
        log.info("agent_answered", agent=self._agent, chars=len(raw))
        return parse_agent_output(raw, model, agent=self._agent), raw
