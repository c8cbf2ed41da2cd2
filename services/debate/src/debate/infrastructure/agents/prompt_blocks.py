"""Text blocks that fill the prompts' placeholders. Expert reasoning and risk warnings come from outside
(and the advocates' cases are derived from them), so they are fenced as untrusted and size-capped."""

from __future__ import annotations

from pydantic import BaseModel

from debate.domain.dtos.debate_input import DebateInput
from shared_contracts.llm.prompts import fence_untrusted

REASONING_MAX_CHARS = 2000
RISK_WARNING_MAX_CHARS = 1000
ARGUMENT_MAX_CHARS = 8000

LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文)", "en": "English"}


def expert_summaries_block(debate_input: DebateInput) -> str:
    blocks = []
    for name, summary in debate_input.expert_summaries.items():
        blocks.append(
            "\n".join(
                [
                    f"### {name}",
                    f"- signal: {summary.signal} (reads as {debate_input.stance(name).value})",
                    f"- confidence: {summary.confidence:.2f}",
                    "- reasoning:",
                    fence_untrusted(f"{name} reasoning", summary.reasoning, REASONING_MAX_CHARS),
                    "- risk_warning:",
                    fence_untrusted(f"{name} risk_warning", summary.risk_warning or "(none)", RISK_WARNING_MAX_CHARS),
                ]
            )
        )
    return "\n\n".join(blocks)


def argument_block(label: str, argument: BaseModel) -> str:
    return fence_untrusted(label, argument.model_dump_json(indent=2, exclude_none=True), ARGUMENT_MAX_CHARS)
