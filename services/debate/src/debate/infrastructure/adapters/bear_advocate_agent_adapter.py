"""BearAdvocateAgentAdapter: the bear case from an LLM (prompts in agents/bear_advocate/prompts)."""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import BearArgument
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.infrastructure.adapters.prompted_agent import AdvocateAgent
from debate.infrastructure.agents.output_parser import BearAdvocateOutput


class BearAdvocateAgentAdapter(AdvocateAgent, IBearAdvocateAgentPort):
    agent = "bear_advocate"
    side = "bear"

    async def advocate(self, input: DebateInput) -> BearArgument:
        output, case = await self._argue(BearAdvocateOutput, input)
        return BearArgument(**case, acknowledged_strengths=[s for s in output.acknowledged_strengths if s.strip()])
