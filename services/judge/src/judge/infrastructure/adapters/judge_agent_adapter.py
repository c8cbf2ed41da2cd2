"""JudgeAgentAdapter: the LLM judge engine — prompt files, ``ILLMPort``, pydantic-validated JSON.

Untrusted text (theses, risks, disagreements, the resolution) is fenced and size-capped; numbers are
formatted by us. The symbol is validated by the domain (a ticker of at most 32 safe characters)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import structlog

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.domain.ports.llm import ILLMPort
from judge.infrastructure.adapters.output_parser import parse_verdict, refused_output
from judge.infrastructure.adapters.rules.texts import price_text
from shared_contracts.engine import EngineInfo
from shared_contracts.llm.errors import LLMJSONError
from shared_contracts.llm.prompts import PromptTemplate, fence_untrusted

log = structlog.get_logger(__name__)

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "agents" / "judge" / "prompts"
THESIS_MAX_CHARS = 2000
LIST_MAX_ITEMS = 20
ITEM_MAX_CHARS = 300
LIST_MAX_CHARS = 4000
TEMPERATURE = 0.2
_LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文)", "en": "English"}


class JudgeAgentAdapter(IJudgeAgentPort):
    def __init__(
        self,
        llm: ILLMPort,
        *,
        model: str,
        max_position_percent: float,
        language: Literal["zh", "en"],
        prompts: PromptTemplate | None = None,
    ) -> None:
        self._llm = llm
        self._model = model
        self._max_position = max_position_percent
        self._language = language
        self._prompts = prompts or PromptTemplate.load(PROMPTS_DIR)

    def render(self, judge_input: JudgeInput) -> tuple[str, str]:
        """(system, user) prompts for this input."""
        levels = judge_input.key_levels
        return self._prompts.render(
            language=_LANGUAGE_NAMES[self._language],
            max_position_percent=f"{self._max_position:g}",
            symbol=judge_input.symbol.strip(),
            direction=judge_input.direction.value,
            confidence=f"{judge_input.confidence:.4g}",
            bull_thesis=fence_untrusted("BULL THESIS", judge_input.bull_thesis, THESIS_MAX_CHARS),
            bear_thesis=fence_untrusted("BEAR THESIS", judge_input.bear_thesis, THESIS_MAX_CHARS),
            risk_count=str(len(judge_input.named_risks)),
            risk_factors=fence_untrusted("RISK FACTORS", _bullets(judge_input.named_risks), LIST_MAX_CHARS),
            disagreement_count=str(len(judge_input.named_disagreements)),
            failed_experts=", ".join(judge_input.failed_experts) or "none",
            key_disagreements=fence_untrusted(
                "KEY DISAGREEMENTS", _bullets(judge_input.named_disagreements), LIST_MAX_CHARS
            ),
            conflict_resolution=fence_untrusted(
                "CONFLICT RESOLUTION", judge_input.conflict_resolution, THESIS_MAX_CHARS
            ),
            reference_price=_reference(judge_input),
            support_levels=_prices(levels.support),
            resistance_levels=_prices(levels.resistance),
        )

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        system, user = self.render(judge_input)
        try:
            text = await self._llm.generate(user, system, TEMPERATURE)
        except LLMJSONError as exc:  # cut off at its length limit
            raise refused_output(exc) from exc
        proposal = parse_verdict(text, EngineInfo(kind="llm", model=self._model))
        log.info("judge_llm_verdict", symbol=judge_input.symbol, action=proposal.action.value)
        return proposal


def _bullets(items: tuple[str, ...]) -> str:
    if not items:
        return "(none)"
    lines = [f"- {' '.join(item.split())[:ITEM_MAX_CHARS]}" for item in items[:LIST_MAX_ITEMS]]
    if len(items) > LIST_MAX_ITEMS:
        lines.append(f"[{len(items) - LIST_MAX_ITEMS} more omitted]")
    return "\n".join(lines)


def _prices(prices: tuple[float, ...]) -> str:
    return ", ".join(price_text(p) for p in sorted(prices)) if prices else "not provided"


def _reference(judge_input: JudgeInput) -> str:
    if judge_input.reference_price is None:
        return "not provided"
    price = price_text(judge_input.reference_price)
    return f"{price} (the close of {judge_input.reference_date.isoformat()})" if judge_input.reference_date else price
