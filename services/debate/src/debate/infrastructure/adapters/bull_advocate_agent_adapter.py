"""BullAdvocateAgentAdapter: the bull case from an LLM (prompts in agents/bull_advocate/prompts)."""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import BullArgument, RiskClaim
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.infrastructure.adapters.prompted_agent import AdvocateAgent
from debate.infrastructure.agents.output_parser import BullAdvocateOutput


class BullAdvocateAgentAdapter(AdvocateAgent, IBullAdvocateAgentPort):
    agent = "bull_advocate"
    side = "bull"

    async def advocate(self, input: DebateInput) -> BullArgument:
        output, case = await self._argue(BullAdvocateOutput, input)
        risks = [RiskClaim(risk=r) for r in output.acknowledged_risks if r.strip()]
        return BullArgument(**case, acknowledged_risks=risks)
