"""ResolutionAgentAdapter: cross-examination and conflict resolution by an LLM (prompts in
agents/resolution/prompts).

The model is given the evidence panel (each expert's stance, confidence, data completeness; the failed experts)
with the weighing guidance of its system prompt and, when the advocates argued from the stock's standings
(``BullArgument.weighing``), that weighing: the contributions, the score, the rank, the coverage and the direction
and confidence it fixes, which the model explains and does not choose (``DebateService`` settles the outcome on
them whatever it answers). Its ``conflict_resolution`` is followed by the coverage sentence, written here from the
panel (not by the model)."""

from __future__ import annotations

from debate.domain.dtos.bull_bear_argument import BearArgument, BullArgument
from debate.domain.dtos.risk_matrix import ResolutionResult
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from debate.infrastructure.adapters.prompted_agent import PromptedAgent
from debate.infrastructure.agents.prompt_blocks import argument_block, evidence_panel_block, standing_block
from debate.infrastructure.rules.texts import coverage_sentence, texts_for


class ResolutionAgentAdapter(PromptedAgent, IResolutionAgentPort):
    agent = "resolution"
    temperature = 0.2  # lower than the advocates', to converge

    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        experts = list(dict.fromkeys([*bull.considered_experts, *bear.considered_experts]))
        panel = bull.panel or bear.panel
        result, _raw, check = await self._ask(
            ResolutionResult,
            symbol=symbol,
            expert_names=", ".join(experts),
            evidence_panel=evidence_panel_block(panel) if panel else _unknown_panel(experts),
            bull_case=argument_block("bull case", bull),
            bear_case=argument_block("bear case", bear),
            standing=standing_block(bull.weighing or bear.weighing, "resolution"),
        )
        result = result.model_copy(update={"numbers_check": check})
        if panel is None:
            return result
        coverage = coverage_sentence(texts_for(self._language), panel)
        stated = f"{result.conflict_resolution.rstrip()} {coverage}"
        return result.model_copy(update={"conflict_resolution": stated})


def _unknown_panel(experts: list[str]) -> str:
    """For cases built without a panel: the experts heard, with no coverage known."""
    return "\n".join(f"- {name}: no coverage figures given" for name in experts) or "- no figures given"
