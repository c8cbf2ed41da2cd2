"""What the three LLM agent adapters share: load system.md + user.md, fill the slots, call
ILLMPort.generate(prompt, system_message, temperature), parse the JSON answer; and what the two
advocates share on top (``AdvocateAgent``): the expert summaries in, the cited experts checked."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeVar

import structlog
from pydantic import BaseModel

from debate.domain.dtos.bull_bear_argument import ArgumentPoint
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.agents.output_parser import check_sources, parse_agent_output, refused_output
from debate.infrastructure.agents.output_schemas import AdvocateOutput
from debate.infrastructure.agents.prompt_blocks import LANGUAGE_NAMES, expert_summaries_block, failed_experts_line
from shared_contracts.llm.errors import LLMJSONError
from shared_contracts.llm.prompts import PromptTemplate

M = TypeVar("M", bound=BaseModel)
A = TypeVar("A", bound=AdvocateOutput)

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
        try:
            raw = await self._llm.generate(user, system, self._temperature)
        except LLMJSONError as exc:  # cut off at its length limit
            raise refused_output(exc, agent=self._agent) from exc
        log.info("agent_answered", agent=self._agent, chars=len(raw))
        return parse_agent_output(raw, model, agent=self._agent), raw


class AdvocateAgent(PromptedAgent):
    async def _argue(self, model: type[A], input: DebateInput) -> tuple[A, list[ArgumentPoint], list[str]]:
        """Ask with the expert summaries; every argument must cite only experts that were heard.
        Returns the answer, its supporting arguments and the experts heard."""
        experts = list(input.expert_summaries)
        output, raw = await self._ask(
            model,
            symbol=input.symbol,
            expert_names=", ".join(experts),
            expert_summaries=expert_summaries_block(input),
            failed_experts=failed_experts_line(input.panel()),
        )
        cited = [p.source_experts for p in output.supporting_arguments]
        check_sources(cited, experts, agent=self._agent, raw_output=raw)
        return output, [ArgumentPoint(**p.model_dump()) for p in output.supporting_arguments], experts
