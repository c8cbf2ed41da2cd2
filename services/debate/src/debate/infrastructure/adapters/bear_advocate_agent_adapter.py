"""BearAdvocateAgentAdapter: the bear case from an LLM (prompts in agents/bear_advocate/prompts)."""

from __future__ import annotations

from typing import Literal

from debate.domain.dtos.bull_bear_argument import ArgumentPoint, BearArgument
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.llm_port import ILLMPort
from debate.infrastructure.adapters.prompted_agent import PromptedAgent
from debate.infrastructure.agents.output_parser import check_sources
from debate.infrastructure.agents.output_schemas import BearAdvocateOutput
from debate.infrastructure.agents.prompt_blocks import expert_summaries_block

ADVOCATE_TEMPERATURE = 0.4


class BearAdvocateAgentAdapter(PromptedAgent, IBearAdvocateAgentPort):
    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh") -> None:
        super().__init__(llm, agent="bear_advocate", temperature=ADVOCATE_TEMPERATURE, language=language)

    async def advocate(self, input: DebateInput) -> BearArgument:
        experts = list(input.expert_summaries)
        output, raw = await self._ask(
            BearAdvocateOutput,
            symbol=input.symbol,
            expert_names=", ".join(experts),
            expert_summaries=expert_summaries_block(input),
        )
        cited = [p.source_experts for p in output.supporting_arguments]
        check_sources(cited, experts, agent=self._agent, raw_output=raw)
        return BearArgument(
            core_thesis=output.core_thesis,
            supporting_arguments=[ArgumentPoint(**p.model_dump()) for p in output.supporting_arguments],
            acknowledged_strengths=[s for s in output.acknowledged_strengths if s.strip()],
            considered_experts=experts,
        )
