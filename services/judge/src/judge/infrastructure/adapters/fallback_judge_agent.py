"""FallbackJudgeAgent (LLM_FALLBACK_TO_RULES): when the LLM engine fails, the rules engine answers and
the verdict's ``engine`` says so (``kind="rules"``, ``fallback_reason`` = the LLM's error). Never silent."""

from __future__ import annotations

from dataclasses import replace

import structlog

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.exceptions import LLMOutputParseError
from judge.domain.ports.judge_agent import IJudgeAgentPort
from shared_contracts.engine import EngineInfo
from shared_contracts.llm.errors import LLMError

log = structlog.get_logger(__name__)


class FallbackJudgeAgent(IJudgeAgentPort):
    def __init__(self, primary: IJudgeAgentPort, fallback: IJudgeAgentPort, *, primary_model: str | None) -> None:
        self._primary = primary
        self._fallback = fallback
        self._primary_model = primary_model

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        try:
            return await self._primary.decide(judge_input)
        except (LLMError, LLMOutputParseError) as exc:
            code = getattr(exc, "code", type(exc).__name__)
            reason = f"LLM engine ({self._primary_model}) failed with {code}: {exc}"
            log.warning("judge_llm_fallback", symbol=judge_input.symbol, code=code, error=str(exc))
        proposal = await self._fallback.decide(judge_input)
        return replace(proposal, engine=EngineInfo(kind=proposal.engine.kind, fallback_reason=reason[:500]))
