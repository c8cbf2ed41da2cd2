"""DebateService: the debate's one use case — bull ∥ bear, then the resolution."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from debate.application.dtos.debate_outcome_dto import DebateOutcomeDTO, build_outcome
from debate.application.standing import follow_standing
from debate.domain.dtos.bull_bear_argument import BearArgument, BullArgument
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from shared_contracts.engine import EngineInfo

Debate = Callable[[DebateInput], Awaitable[DebateOutcomeDTO]]


class DebateService:
    """Runs the bull and bear advocates concurrently, then the resolution on both cases. Any agent's exception
    propagates unchanged (the sibling advocate is cancelled), unless ``fallback`` wraps the debate: for
    LLM_FALLBACK_TO_RULES the container passes ``lambda debate: RulesFallback(debate, rules_service.run)``."""

    def __init__(
        self,
        bull: IBullAdvocateAgentPort,
        bear: IBearAdvocateAgentPort,
        resolution: IResolutionAgentPort,
        engine: EngineInfo,
        *,
        fallback: Callable[[Debate], Debate] | None = None,
        language: str = "zh",
    ) -> None:
        self._language = language
        self._bull = bull
        self._bear = bear
        self._resolution = resolution
        self.engine = engine
        self._run = fallback(self._debate) if fallback else self._debate

    async def run(self, debate_input: DebateInput) -> DebateOutcomeDTO:
        """The debate; with the stock's composite standing, its direction follows that (``application.standing``)."""
        outcome = await self._run(debate_input)
        if debate_input.composite is None:
            return outcome
        return follow_standing(outcome, debate_input.composite, self._language)

    async def _debate(self, debate_input: DebateInput) -> DebateOutcomeDTO:
        bull, bear = await self._advocate_both(debate_input)
        resolution = await self._resolution.resolve(debate_input.symbol, bull, bear)
        return build_outcome(debate_input.symbol, bull, bear, resolution, self.engine, debate_input.panel())

    async def _advocate_both(self, debate_input: DebateInput) -> tuple[BullArgument, BearArgument]:
        bull_task = asyncio.ensure_future(self._bull.advocate(debate_input))
        bear_task = asyncio.ensure_future(self._bear.advocate(debate_input))
        try:
            bull, bear = await asyncio.gather(bull_task, bear_task)
        except BaseException:
            for task in (bull_task, bear_task):
                task.cancel()
            await asyncio.gather(bull_task, bear_task, return_exceptions=True)
            raise
        return bull, bear
