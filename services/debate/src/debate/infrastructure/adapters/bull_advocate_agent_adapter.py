"""BullAdvocateAgentAdapter: the bull case from an LLM (prompts in agents/bull_advocate/prompts)."""

from __future__ import annotations

from typing import Literal

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.prompted_agent import PromptedAgent
from debate.infrastructure.agents.output_parser import check_sources
from debate.infrastructure.agents.output_schemas import BullAdvocateOutput
from debate.infrastructure.agents.prompt_blocks import expert_summaries_block

ADVOCATE_TEMPERATURE = 0.4


class BullAdvocateAgentAdapter(PromptedAgent, IBullAdvocateAgentPort):
    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh") -> None:
        super().__init__(llm, agent="bull_advocate", temperature=ADVOCATE_TEMPERATURE, language=language)

    async def advocate(self, input: DebateInput) -> BullArgument:
        experts = list(input.expert_summaries)
        output, raw = await self._ask(
            BullAdvocateOutput,
            symbol=input.symbol,
            expert_names=", ".join(experts),
            expert_summaries=expert_summaries_block(input),
        )
        cited = [p.source_experts for p in output.supporting_arguments]
        check_sources(cited, experts, agent=self._agent, raw_output=raw)
        return BullArgument(
            core_thesis=output.core_thesis,
            supporting_arguments=[ArgumentPoint(**p.model_dump()) for p in output.supporting_arguments],
            acknowledged_risks=[RiskClaim(risk=r) for r in output.acknowledged_risks if r.strip()],
            considered_experts=experts,
        )
