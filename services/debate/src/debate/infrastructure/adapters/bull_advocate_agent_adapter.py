"""BullAdvocateAgentAdapter: the bull case from an LLM (prompts in agents/bull_advocate/prompts)."""

from __future__ import annotations

from typing import Literal

from debate.domain.dtos.bull_bear_argument import BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.prompted_agent import AdvocateAgent
from debate.infrastructure.agents.output_schemas import BullAdvocateOutput

ADVOCATE_TEMPERATURE = 0.4


class BullAdvocateAgentAdapter(AdvocateAgent, IBullAdvocateAgentPort):
    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh") -> None:
        super().__init__(llm, agent="bull_advocate", temperature=ADVOCATE_TEMPERATURE, language=language)

    async def advocate(self, input: DebateInput) -> BullArgument:
        output, arguments, experts = await self._argue(BullAdvocateOutput, input)
        return BullArgument(
            core_thesis=output.core_thesis,
            supporting_arguments=arguments,
            acknowledged_risks=[RiskClaim(risk=r) for r in output.acknowledged_risks if r.strip()],
            considered_experts=experts,
            panel=input.panel(),
        )
