"""What the three LLM agent adapters share: the prompts of ``agents/<agent>/prompts/`` filled,
``ILLMPort.generate(prompt, system_message, temperature)`` called, the JSON answer parsed; and what the two
advocates share on top (``AdvocateAgent``): the expert summaries and the standings' weighing in (each side is told
its dimensions), the cited experts checked, the weighing set on the case for the resolution."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import structlog
from pydantic import BaseModel

from debate.domain.dtos.bull_bear_argument import ArgumentPoint
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.agents.output_parser import AdvocateOutput, check_sources, naming_agent, parse_agent_output
from debate.infrastructure.agents.prompt_blocks import (
    LANGUAGE_NAMES,
    Role,
    expert_summaries_block,
    failed_experts_line,
    standing_block,
)
from service_kit.llm.numbers.gate import NumbersGate
from service_kit.llm.numbers.sources import sources_from
from service_kit.llm.prompts import PromptTemplate
from service_kit.llm.tracing import model_call_stage
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.numbers_check import NumbersCheck

M = TypeVar("M", bound=BaseModel)
A = TypeVar("A", bound=AdvocateOutput)

PROMPTS_ROOT = Path(__file__).resolve().parent.parent / "agents"

log = structlog.get_logger(__name__)


class PromptedAgent:
    agent: ClassVar[str]  # names the prompts folder infrastructure/agents/<agent>/prompts/
    temperature: ClassVar[float]

    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh", gate: NumbersGate | None = None) -> None:
        self._llm = llm
        self._language = language
        self._gate = gate or NumbersGate()
        self._template = PromptTemplate.load(PROMPTS_ROOT / self.agent / "prompts")

    async def _ask(self, model: type[M], **slots: str) -> tuple[M, str, NumbersCheck]:
        """The parsed answer with its texts through the numbers gate, the raw text (for further validation)
        and what the gate found."""
        system, user = self._template.render(language=LANGUAGE_NAMES[self._language], **slots)

        async def ask_again(instruction: str) -> M:
            return parse_agent_output(
                await self._llm.generate(user + instruction, system, self.temperature), model, agent=self.agent
            )

        try:
            with model_call_stage(self.agent):
                raw = await self._llm.generate(user, system, self.temperature)
                log.info("agent_answered", agent=self.agent, chars=len(raw))
                answer = parse_agent_output(raw, model, agent=self.agent)
                answer, check = await self._gate.review(answer, sources_from([system, user]), ask_again)
        except LLMOutputParseError as exc:  # cut off at its length limit, or figures refused (numbers gate)
            if exc.agent is None:
                raise naming_agent(exc, agent=self.agent) from exc
            raise
        return answer, raw, check


class AdvocateAgent(PromptedAgent):
    temperature = 0.4
    side: ClassVar[Role]  # "bull" argues from the positive contributions, "bear" from the negative ones

    async def _argue(self, model: type[A], input: DebateInput) -> tuple[A, dict[str, Any]]:
        """Ask with the expert summaries and the standings' weighing; every argument must cite only experts that
        were heard. Returns the answer and the fields both cases share (thesis, arguments, experts heard, evidence
        panel, the weighing the case argued from)."""
        experts = list(input.expert_summaries)
        weighing = input.weighing()
        output, raw, check = await self._ask(
            model,
            symbol=input.symbol,
            expert_names=", ".join(experts),
            expert_summaries=expert_summaries_block(input),
            failed_experts=failed_experts_line(input.panel()),
            standing=standing_block(weighing, self.side),
        )
        check_sources(
            [p.source_experts for p in output.supporting_arguments], experts, agent=self.agent, raw_output=raw
        )
        points = [ArgumentPoint(**p.model_dump()) for p in output.supporting_arguments]
        case = {
            "core_thesis": output.core_thesis,
            "supporting_arguments": points,
            "considered_experts": experts,
            "numbers_check": check,
        }
        return output, {**case, "panel": input.panel(), "weighing": weighing}
