"""Text blocks that fill the prompts' placeholders. Expert reasoning and risk warnings come from outside
(and the advocates' cases are derived from them), so they are fenced as untrusted and size-capped."""

from __future__ import annotations

from pydantic import BaseModel

from debate.domain.dtos.debate_input import DebateInput
from debate.domain.dtos.evidence import EvidencePanel
from service_kit.llm.prompts import fence_untrusted

REASONING_MAX_CHARS = 2000
RISK_WARNING_MAX_CHARS = 1000
ARGUMENT_MAX_CHARS = 8000

LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文)", "en": "English"}


def _coverage_line(panel: EvidencePanel, name: str) -> str:
    e = panel.experts[name]
    return (
        f"- data completeness: {e.coverage:.2f} ({e.data_gaps} data gaps, {e.staleness} stale inputs); "
        f"evidence weight = confidence x completeness = {e.weight:.2f}"
    )


def failed_experts_line(panel: EvidencePanel) -> str:
    if not panel.failed_experts:
        return f"none: {len(panel.experts)} of {panel.asked} experts answered"
    return (
        f"{', '.join(panel.failed_experts)} ({len(panel.experts)} of {panel.asked} experts answered; "
        f"{panel.evidence_share * 100:.0f} % of the evidence asked for)"
    )


def expert_summaries_block(debate_input: DebateInput) -> str:
    panel = debate_input.panel()
    return "\n\n".join(
        f"### {name}\n- signal: {summary.signal} (reads as {debate_input.stance(name).value})\n"
        f"- confidence: {summary.confidence:.2f}\n{_coverage_line(panel, name)}\n- reasoning:\n"
        f"{fence_untrusted(f'{name} reasoning', summary.reasoning, REASONING_MAX_CHARS)}\n- risk_warning:\n"
        + fence_untrusted(f"{name} risk_warning", summary.risk_warning or "(none)", RISK_WARNING_MAX_CHARS)
        for name, summary in debate_input.expert_summaries.items()
    )


def evidence_panel_block(panel: EvidencePanel) -> str:
    """One line per answering expert (stance, confidence, coverage, weight) and the failed experts; only
    numbers, verdict words and expert names, which the service checked."""
    lines = [
        f"- {name}: {e.stance.value}, confidence {e.confidence:.2f}, data completeness {e.coverage:.2f} "
        f"({e.data_gaps} data gaps, {e.staleness} stale inputs), evidence weight {e.weight:.2f}"
        for name, e in panel.experts.items()
    ]
    lines.append(f"- failed (missing evidence): {failed_experts_line(panel)}")
    return "\n".join(lines)


def argument_block(label: str, argument: BaseModel) -> str:
    """The case as JSON, without the evidence panel (the resolution's prompt gives that once, on its own)."""
    dumped = argument.model_dump_json(indent=2, exclude_none=True, exclude={"panel", "numbers_check"})
    return fence_untrusted(label, dumped, ARGUMENT_MAX_CHARS)
