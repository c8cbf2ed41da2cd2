"""BearAdvocateAgentAdapter: the bear case from an LLM (prompts in agents/bear_advocate/prompts)."""

from __future__ import annotations

from typing import Literal

from debate.domain.dtos.bull_bear_argument import BearArgument
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.prompted_agent import AdvocateAgent
from debate.infrastructure.agents.output_schemas import BearAdvocateOutput

ADVOCATE_TEMPERATURE = 0.4


class BearAdvocateAgentAdapter(AdvocateAgent, IBearAdvocateAgentPort):
    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh") -> None:
        super().__init__(llm, agent="bear_advocate", temperature=ADVOCATE_TEMPERATURE, language=language)

    async def advocate(self, input: DebateInput) -> BearArgument:
        output, arguments, experts = await self._argue(BearAdvocateOutput, input)
        return BearArgument(
            core_thesis=output.core_thesis,
            supporting_arguments=arguments,
            acknowledged_strengths=[s for s in output.acknowledged_strengths if s.strip()],
            considered_experts=experts,
            panel=input.panel(),
        )
