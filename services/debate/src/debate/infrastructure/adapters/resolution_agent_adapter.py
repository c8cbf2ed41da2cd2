"""ResolutionAgentAdapter: cross-examination and conflict resolution by an LLM
(prompts in agents/resolution/prompts); a lower temperature than the advocates, to converge."""

from __future__ import annotations

from typing import Literal

from debate.domain.dtos.bull_bear_argument import BearArgument, BullArgument
from debate.domain.dtos.resolution_result import ResolutionResult
from debate.domain.ports.llm_port import ILLMPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from debate.infrastructure.adapters.prompted_agent import PromptedAgent
from debate.infrastructure.agents.prompt_blocks import argument_block

RESOLUTION_TEMPERATURE = 0.2


class ResolutionAgentAdapter(PromptedAgent, IResolutionAgentPort):
    def __init__(self, llm: ILLMPort, language: Literal["zh", "en"] = "zh") -> None:
        super().__init__(llm, agent="resolution", temperature=RESOLUTION_TEMPERATURE, language=language)

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        experts = list(dict.fromkeys([*bull.considered_experts, *bear.considered_experts]))
        result, _raw = await self._ask(
            ResolutionResult,
            symbol=symbol,
            expert_names=", ".join(experts),
            bull_case=argument_block("bull case", bull),
            bear_case=argument_block("bear case", bear),
        )
        return result
