"""DebateService: the debate's one use case — bull ∥ bear, then the resolution."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from debate.application.dtos.debate_outcome_dto import DebateOutcomeDTO, build_outcome
from debate.application.standing import follow_standing, settle
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
        """The debate; with the stock's standing by factor family, the experts are weighed by it and the outcome
        carries their contributions (``application.standing``)."""
        outcome = await self._run(debate_input)
        if (weighing := debate_input.weighing()) is not None:
            return settle(outcome, weighing, self._language)
        if debate_input.composite is None:
            return outcome
        return follow_standing(outcome, debate_input.composite, self._language)

    async def _debate(self, debate_input: DebateInput) -> DebateOutcomeDTO:
        bull, bear = await self._advocate_both(debate_input)
        resolution = await self._resolution.resolve(debate_input.symbol, bull, bear)
        return build_outcome(debate_input.symbol, bull, bear, resolution, self.engine, debate_input.panel())

    async def _advocate_both(self, debate_input: DebateInput) -> tuple[BullArgument, BearArgument]:
        """Both advocates in a task group: the first to fail cancels the other, and its own exception (not the
        group's ``ExceptionGroup``) is raised as it was, so callers and the HTTP mapping see the agent's error."""
        first: BaseException | None = None
        try:
            async with asyncio.TaskGroup() as group:
                bull = group.create_task(self._bull.advocate(debate_input))
                bear = group.create_task(self._bear.advocate(debate_input))
        except BaseExceptionGroup as failed:
            first = failed.exceptions[0]
        if first is not None:
            raise first  # outside the handler: the error keeps its own __context__
        return bull.result(), bear.result()
