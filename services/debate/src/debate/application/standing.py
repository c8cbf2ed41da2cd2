"""The debate's direction from the stock's standing in its reference universe (docs/decisions.md,
"Stock-specific composite (issue 35)", "One decision (issue 52)").

``settle``: the outcome's direction, confidence, score, rank, coverage and contributions are the weighing's
(``domain.dtos.standing_weighing``), the same numbers the advocates and the resolution wrote their texts from. A
resolution that answered another direction (an LLM's, told the weighing fixes it) does not move it: the outcome
keeps the weighing's, and a sentence saying so ends ``conflict_resolution`` (``OVERRULED``, in REPORT_LANGUAGE).
``follow_standing``: for a composite without its families (a caller that sends an older composite), the
previous behaviour.

With a composite (``DebateInput.composite``) the experts' weighed votes argue the case, but the direction and
the confidence follow the composite (``shared_contracts.standing.standing_side``: top fifth of the universe
bullish, bottom fifth bearish; confidence the distance from the universe's middle, not a probability), so
that no market-wide view can sweep every stock one way.
"""

from __future__ import annotations

from debate.domain.dtos.standing_weighing import StandingWeighing
from shared_contracts.debate import DebateOutcome
from shared_contracts.standing import CompositeStanding, standing_side

_NOTE = {
    "zh": (
        "方向取自该股在参照股票池中的相对位置：综合得分 {score:+.2f}，{rank}，证据覆盖 {coverage:.0%}"
        "（前 20% 看多、后 20% 看空，证据覆盖低于 50% 为中性）；宏观等全市场观点不决定个股方向。"
    ),
    "en": (
        "The direction follows the stock's standing in its reference universe: composite score {score:+.2f}, "
        "{rank}, evidence coverage {coverage:.0%} (top fifth bullish, bottom fifth bearish, neutral below "
        "50 % coverage); market-wide views such as macro do not set a stock's direction."
    ),
}


_RANK = {"zh": "池内分位 {rank:.2f}", "en": "universe rank {rank:.2f}"}
_NO_RANK = {"zh": "无池内分位", "en": "no universe rank available"}


def follow_standing(outcome: DebateOutcome, composite: CompositeStanding, language: str) -> DebateOutcome:
    """The outcome with the standing's direction, confidence, score and rank, and a sentence saying so."""
    language_key = "zh" if language == "zh" else "en"
    direction, confidence = standing_side(composite.score, composite.universe_rank, composite.coverage)
    ranked = composite.universe_rank
    rank = _NO_RANK[language_key] if ranked is None else _RANK[language_key].format(rank=ranked)
    note = _NOTE[language_key].format(score=composite.score, rank=rank, coverage=composite.coverage)
    separator = "" if language == "zh" else " "
    return outcome.model_copy(
        update={
            "direction": direction,
            "confidence": confidence,
            "score": composite.score,
            "universe_rank": composite.universe_rank,
            "standing_coverage": composite.coverage,
            "conflict_resolution": outcome.conflict_resolution
            if note in outcome.conflict_resolution  # a fallback engine's outcome already follows it
            else separator.join(p for p in (outcome.conflict_resolution, note) if p),
        }
    )


OVERRULED = {
    "zh": "（裁决给出{proposed}；方向以各专家在参照池中相对位置的加权为准：{direction}，置信度 {confidence:.2f}。）",
    "en": "(The resolution answered {proposed}; the direction is the weighing's, fixed by the experts' standings: "
    "{direction}, confidence {confidence:.2f}.)",
}
_SIDE_WORDS = {"zh": {"BULLISH": "看多", "BEARISH": "看空", "NEUTRAL": "中性"}}


def settle(outcome: DebateOutcome, weighing: StandingWeighing, language: str) -> DebateOutcome:
    """The outcome with the weighing's figures (its texts were written from the same weighing); when the
    resolution answered another direction, a sentence saying that the weighing's stands (module doc)."""
    resolution = outcome.conflict_resolution
    if outcome.direction != weighing.direction:
        language_key = "zh" if language == "zh" else "en"
        words = _SIDE_WORDS.get(language_key, {})
        note = OVERRULED[language_key].format(
            proposed=words.get(outcome.direction, outcome.direction),
            direction=words.get(weighing.direction, weighing.direction),
            confidence=weighing.confidence,
        )
        resolution = ("" if language_key == "zh" else " ").join(p for p in (resolution.rstrip(), note) if p)
    return outcome.model_copy(
        update={
            "conflict_resolution": resolution,
            "direction": weighing.direction,
            "confidence": weighing.confidence,
            "score": weighing.score,
            "universe_rank": weighing.universe_rank,
            "standing_coverage": weighing.coverage,
            "contributions": list(weighing.contributions),
        }
    )
