"""Text blocks that fill the prompts' placeholders. Expert reasoning and risk warnings come from outside
(and the advocates' cases are derived from them), so they are fenced as untrusted and size-capped. The standing
block (``standing_block``) holds only figures, verdict words and expert names the service computed: the same
numbers the outcome carries (``contributions``, ``score``, ``universe_rank``, ``standing_coverage``), which the
numbers gate traces the agents' texts to."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from debate.domain.dtos.debate_input import DebateInput
from debate.domain.dtos.evidence import EvidencePanel
from debate.domain.dtos.standing_weighing import StandingWeighing
from service_kit.llm.prompts import fence_untrusted
from shared_contracts.debate import Contribution, contribution_line
from shared_contracts.standing import BOTTOM_RANK, MIN_STANDING_COVERAGE, SCORE_EDGE, TOP_RANK

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
    """The case as JSON, without the evidence panel and the standings (the resolution's prompt gives each once, on
    its own)."""
    dumped = argument.model_dump_json(indent=2, exclude_none=True, exclude={"panel", "numbers_check", "weighing"})
    return fence_untrusted(label, dumped, ARGUMENT_MAX_CHARS)


Role = Literal["bull", "bear", "resolution"]

_HELD_BACK = {
    "score_sign": "the score's sign disagrees with that side",
    "no_expert_on_side": "no voting expert stands on that side",
}
_NO_STANDING = {
    "bull": "Not computed for this stock: argue from the experts' summaries.",
    "bear": "Not computed for this stock: argue from the experts' summaries.",
    "resolution": "Not computed for this stock: decide the direction and the confidence from the two cases and "
    "the evidence panel.",
}


def _contribution_line(c: Contribution) -> str:
    return f"- {contribution_line(c)}"


def _side_line(role: Role, weighing: StandingWeighing) -> str:
    if role == "resolution":
        return (
            f"The direction and the confidence are fixed by this weighing: direction {weighing.direction}, "
            f"confidence {weighing.confidence:.2f}. Answer exactly these two values and explain them; do not "
            "choose them."
        )
    bull = role == "bull"
    side = weighing.positive() if bull else weighing.negative()
    sign = "positive" if bull else "negative"
    if not side:
        return (
            f"Your dimensions ({sign} contributions): none. No dimension {'adds to' if bull else 'takes from'} the "
            "score: say so in core_thesis; the experts' summaries can only qualify it."
        )
    listed = ", ".join(f"{c.expert} {c.contribution:+.2f}" for c in side)
    return f"Your dimensions ({sign} contributions): {listed}. Argue from these experts' dimensions."


def standing_block(weighing: StandingWeighing | None, role: Role) -> str:
    """The experts weighed by their standings (``DebateInput.weighing()``): each expert's contribution, the score,
    the universe rank, the coverage and the direction the rank rule decided; then what ``role`` does with them."""
    if weighing is None:
        return _NO_STANDING[role]
    lines = [_contribution_line(c) for c in weighing.contributions]
    lines.append(f"- score = the sum of the contributions = {weighing.score:+.2f}")
    if weighing.universe_rank is not None:
        rank = weighing.universe_rank
        lines.append(f"- universe rank: {rank:.2f} (the score's percentile in the reference universe)")
    else:
        missing = ", ".join(weighing.missing) or "none"
        lines.append(
            f"- universe rank: none (voting experts not heard: {missing}; the heard experts' weights are "
            f"renormalised and the score is read against +/-{SCORE_EDGE:.2f})"
        )
    lines.append(f"- evidence coverage: {weighing.coverage:.2f} (share of the composite's weight with data)")
    rule = (
        f"top {1 - TOP_RANK:.0%} of the universe bullish, bottom {BOTTOM_RANK:.0%} bearish, neutral below "
        f"{MIN_STANDING_COVERAGE:.0%} coverage"
    )
    lines.append(f"- the rank rule ({rule}) gives {weighing.ranked_side}")
    if weighing.held_back is not None:
        lines.append(f"- held back to NEUTRAL: {_HELD_BACK[weighing.held_back]}")
    measure = "|2 x rank - 1|" if weighing.universe_rank is not None else "|score|"
    lines.append(
        f"- direction: {weighing.direction}, confidence {weighing.confidence:.2f} ({measure}: how far the stock "
        "stands from the universe's middle, not a probability)"
    )
    return "\n".join([*lines, "", _side_line(role, weighing)])
