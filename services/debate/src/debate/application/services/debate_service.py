"""DebateService: the debate's one use case — bull ∥ bear, then the resolution."""

from __future__ import annotations

import asyncio
import logging

from debate.application.dtos.debate_outcome_dto import DebateOutcomeDTO, build_outcome
from debate.domain.dtos.bull_bear_argument import BearArgument, BullArgument
from debate.domain.dtos.debate_input import DebateInput
from debate.domain.ports.bear_advocate_agent import IBearAdvocateAgentPort
from debate.domain.ports.bull_advocate_agent import IBullAdvocateAgentPort
from debate.domain.ports.resolution_agent import IResolutionAgentPort
from shared_contracts.engine import EngineInfo

log = logging.getLogger(__name__)


class DebateService:
    """Runs the bull and bear advocates concurrently, then the resolution on both cases.

    Any agent's exception propagates unchanged (the sibling advocate is cancelled). Only when a
    ``fallback`` service is given — the LLM_FALLBACK_TO_RULES option — an exception of a type listed in
    ``fallback_on`` makes the fallback answer instead, and the outcome's ``engine.fallback_reason`` says so.
    """

    def __init__(
        self,
        bull: IBullAdvocateAgentPort,
        bear: IBearAdvocateAgentPort,
        resolution: IResolutionAgentPort,
        engine: EngineInfo,
        *,
        fallback: DebateService | None = None,
        fallback_on: tuple[type[Exception], ...] = (),
    ) -> None:
        if fallback_on and fallback is None:
            raise ValueError("fallback_on needs a fallback service")
        self._bull = bull
        self._bear = bear
        self._resolution = resolution
        self._engine = engine
        self._fallback = fallback
        self._fallback_on = fallback_on

    @property
    def engine(self) -> EngineInfo:
        return self._engine

    async def run(self, debate_input: DebateInput) -> DebateOutcomeDTO:
        try:
            return await self._debate(debate_input)
        except self._fallback_on as exc:
            assert self._fallback is not None
            reason = f"{self._engine.kind} engine failed ({getattr(exc, 'code', type(exc).__name__)}): {exc}"
            log.warning("debate_engine_fallback: %s", reason)
            outcome = await self._fallback.run(debate_input)
            return outcome.model_copy(update={"engine": outcome.engine.model_copy(update={"fallback_reason": reason})})

    async def _debate(self, debate_input: DebateInput) -> DebateOutcomeDTO:
        bull, bear = await self._advocate_both(debate_input)
        resolution = await self._resolution.resolve(debate_input.symbol, bull, bear)
        return build_outcome(debate_input.symbol, bull, bear, resolution, self._engine, debate_input.panel())

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
