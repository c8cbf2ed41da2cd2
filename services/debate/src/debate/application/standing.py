"""The debate's direction from the stock's standing in its reference universe (docs/decisions.md,
"Stock-specific composite (issue 35)").

With a composite (``DebateInput.composite``) the experts' weighed votes argue the case, but the direction and
the confidence follow the composite, so that no market-wide view can sweep every stock one way:

- direction  BULLISH when universe_rank ≥ ``TOP_RANK`` (the universe's top fifth), BEARISH when ≤
             ``BOTTOM_RANK``, else NEUTRAL; without a rank, BULLISH / BEARISH when score ≥ / ≤ ±``SCORE_EDGE``.
             NEUTRAL whatever the rank when the composite's coverage is below ``MIN_COVERAGE``.
- confidence the standing's distance from the universe's middle, |2·rank − 1| (|score| without a rank): not a
             probability; a stock at the median scores 0, the top or bottom one 1.
"""

from __future__ import annotations

from typing import Literal

from shared_contracts.debate import DebateOutcome
from shared_contracts.standing import CompositeStanding

TOP_RANK = 0.80
BOTTOM_RANK = 0.20
SCORE_EDGE = 0.35
"""Without a universe rank: the in-sample top/bottom fifth of composite scores lies beyond about ±0.35."""
MIN_COVERAGE = 0.50

_NOTE = {
    "zh": (
        "方向取自该股在参照股票池中的相对位置：综合得分 {score:+.2f}，池内分位 {rank}，覆盖 {coverage:.0%}"
        "（前 20% 看多、后 20% 看空，覆盖低于 50% 为中性）；宏观等全市场观点不决定个股方向。"
    ),
    "en": (
        "The direction follows the stock's standing in its reference universe: composite score {score:+.2f}, "
        "universe rank {rank}, coverage {coverage:.0%} (top fifth bullish, bottom fifth bearish, neutral below "
        "50 % coverage); market-wide views such as macro do not set a stock's direction."
    ),
}


def standing_direction(composite: CompositeStanding) -> tuple[Literal["BULLISH", "BEARISH", "NEUTRAL"], float]:
    """(direction, confidence) of the module doc."""
    rank = composite.universe_rank
    strength = abs(2.0 * rank - 1.0) if rank is not None else abs(composite.score)
    if composite.coverage < MIN_COVERAGE:
        return "NEUTRAL", round(strength, 4)
    if rank is not None:
        bullish, bearish = rank >= TOP_RANK, rank <= BOTTOM_RANK
    else:
        bullish, bearish = composite.score >= SCORE_EDGE, composite.score <= -SCORE_EDGE
    direction: Literal["BULLISH", "BEARISH", "NEUTRAL"] = "BULLISH" if bullish else "BEARISH" if bearish else "NEUTRAL"
    return direction, round(strength, 4)


def follow_standing(outcome: DebateOutcome, composite: CompositeStanding, language: str) -> DebateOutcome:
    """The outcome with the standing's direction, confidence, score and rank, and a sentence saying so."""
    direction, confidence = standing_direction(composite)
    rank = "n/a" if composite.universe_rank is None else f"{composite.universe_rank:.2f}"
    note = _NOTE["zh" if language == "zh" else "en"].format(
        score=composite.score, rank=rank, coverage=composite.coverage
    )
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
