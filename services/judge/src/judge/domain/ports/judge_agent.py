"""IJudgeAgentPort: the judge engine (LLM adapter, rules adapter, or the LLM-with-rules-fallback)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal


class IJudgeAgentPort(ABC):
    @abstractmethod
    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        """Propose a verdict; raise ``LLMOutputParseError`` (or an LLM call error) when the engine fails."""
