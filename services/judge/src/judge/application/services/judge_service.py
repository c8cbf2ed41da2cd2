"""JudgeService: the judge's one use case — ask the engine, enforce the guardrails, make levels concrete,
and, given the portfolio's value, express the position in whole lots."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from judge.application.dtos.verdict_dto import VerdictDTO
from judge.application.guardrails import GuardrailPolicy, apply_guardrails
from judge.application.position_lots import size_in_lots
from judge.application.price_levels import price_levels
from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.ports.judge_agent import IJudgeAgentPort
from shared_contracts.judge import CONFIDENCE_SENTENCE

Decide = Callable[[JudgeInput], Awaitable[VerdictProposal]]
Calibration = Callable[[str, float | None, float | None], float]
"""(action, universe_rank, score) → the probability that the call is right (the judge's fitted map)."""
_CONFIDENCE = {"zh": "置信度 {confidence:.2f}：{sentence}", "en": "Confidence {confidence:.2f}: {sentence}"}


class JudgeService:
    """The engine's failures propagate unchanged, unless ``fallback`` wraps its ``decide``: for
    LLM_FALLBACK_TO_RULES the container passes ``lambda decide: RulesFallback(decide, rules_agent.decide)``."""

    def __init__(
        self,
        agent: IJudgeAgentPort,
        policy: GuardrailPolicy,
        *,
        fallback: Callable[[Decide], Decide] | None = None,
        confidence: Calibration | None = None,
    ) -> None:
        """``confidence``: the calibration that sets every standing verdict's confidence, whichever engine
        proposed it (None: the engine's own number stands)."""
        self._decide = fallback(agent.decide) if fallback else agent.decide
        self._policy = policy
        self._confidence = confidence

    @property
    def policy(self) -> GuardrailPolicy:
        return self._policy

    async def run(self, judge_input: JudgeInput) -> VerdictDTO:
        proposal = await self._decide(judge_input)
        safe, notes = apply_guardrails(proposal, judge_input, self._policy)
        stop, take = price_levels(safe.action, safe.stop_loss, safe.take_profit, judge_input.reference_price)
        confidence, reasoning = safe.confidence, safe.reasoning
        if self._confidence is not None and judge_input.score is not None:
            language = self._policy.language
            confidence = self._confidence(safe.action.value, judge_input.universe_rank, judge_input.score)
            stated = _CONFIDENCE[language].format(confidence=confidence, sentence=CONFIDENCE_SENTENCE[language])
            reasoning = ("" if language == "zh" else " ").join((reasoning, stated))
        position, shares, entry = safe.position_percent, None, safe.entry_strategy
        if lots := size_in_lots(judge_input, safe.action, position, self._policy.language):
            position, shares = lots.position_percent, lots.shares
            entry += ("" if self._policy.language == "zh" else " ") + lots.sentence
        return VerdictDTO(
            symbol=judge_input.symbol.strip(),
            action=safe.action,
            position_percent=position,
            position_shares=shares,
            confidence=confidence,
            reference_price=judge_input.reference_price,
            reference_date=judge_input.reference_date,
            entry_strategy=entry,
            stop_loss=stop,
            take_profit=take,
            time_horizon=safe.time_horizon,
            risk_warnings=list(safe.risk_warnings),
            reasoning=reasoning,
            engine=safe.engine,
            guardrail_adjustments=list(notes),
            score=judge_input.score,
            universe_rank=judge_input.universe_rank,
            contributions=list(judge_input.contributions) or None,
            market_exposure=safe.market_exposure,
            numbers_check=safe.numbers_check,
        )
