"""How the debate weighs its experts when the research placed the stock in its reference universe.

Each voting expert (technical, valuation, financial) stands where its factor family of the composite puts the
stock (``shared_contracts.standing.FamilyStanding``): its signal and confidence come from that standing
(``expert_side``), its weight is the family's share of the composite, and its contribution is weight × family
score. The contributions sum to the score. Every other expert is listed with weight 0: macro sets the judge's
exposure, the catalyst detective reports events and risks.

- All voting experts with standing data heard (the product's configuration): the score, the universe rank and
  the coverage are the research's composite, unchanged.
- Some missing (not asked for, or failed): the heard families' weights are renormalised to sum to 1; the score
  is their weighted mean, it has no universe rank (the universe was ranked on the whole composite) and is read
  against ±``SCORE_EDGE``; the coverage is the composite's × the share of its weight heard.

Direction: ``standing_side`` of (score, rank, coverage) — the universe's top fifth BULLISH, bottom fifth BEARISH
— and a side is taken only when the score has its sign (Σ contributions > 0 for BULLISH) and at least one voting
expert is on it; otherwise NEUTRAL, and ``held_back`` says why. Confidence: the distance from the universe's
middle, |2·rank − 1| (|score| without a rank) — how far the stock stands out, not a probability.

Example::

    weighing = weigh_standing(debate_input)   # None without families to weigh
    weighing.direction, weighing.score, [c.contribution for c in weighing.contributions]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from shared_contracts.debate import Contribution
from shared_contracts.experts import stance_of
from shared_contracts.projection import ExpertSummary
from shared_contracts.standing import (
    CompositeStanding,
    FamilyStanding,
    Side,
    expert_side,
    standing_side,
)

MARKET_WIDE_EXPERT = "macro_intelligence"
EVENTS_EXPERT = "catalyst_detective"
NonVote = Literal["market_wide", "events", "no_standing_data", "not_a_family"]
HeldBack = Literal["score_sign", "no_expert_on_side"]


@dataclass(frozen=True)
class StandingWeighing:
    score: float
    universe_rank: float | None
    coverage: float
    complete: bool
    """Every voting expert with standing data was heard: score, rank and coverage are the composite's."""
    contributions: tuple[Contribution, ...]
    direction: Side
    confidence: float
    ranked_side: Side
    """The side the rank rule alone gives; differs from ``direction`` only when ``held_back``."""
    held_back: HeldBack | None
    non_votes: Mapping[str, NonVote]
    """Each expert that does not vote, and why."""
    missing: tuple[str, ...]
    """Voting experts with standing data that were not heard (not asked for, or failed)."""

    def voters(self) -> list[Contribution]:
        return [c for c in self.contributions if c.votes]

    def positive(self) -> list[Contribution]:
        """Voting experts whose dimension adds to the score, largest first."""
        return sorted((c for c in self.voters() if c.contribution > 0), key=lambda c: (-c.contribution, c.expert))

    def negative(self) -> list[Contribution]:
        """Voting experts whose dimension takes from the score, largest first."""
        return sorted((c for c in self.voters() if c.contribution < 0), key=lambda c: (c.contribution, c.expert))


def _non_vote(name: str, family: FamilyStanding | None) -> NonVote:
    if name == MARKET_WIDE_EXPERT:
        return "market_wide"
    if name == EVENTS_EXPERT:
        return "events"
    return "not_a_family" if family is None else "no_standing_data"


def _votes(family: FamilyStanding | None) -> bool:
    return family is not None and family.score is not None and family.weight > 0


def weigh_standing(
    summaries: Mapping[str, ExpertSummary], composite: CompositeStanding | None
) -> StandingWeighing | None:
    """The weighing of ``summaries`` (the heard experts) on ``composite``; None when no heard expert votes (no
    families, or none of them heard), and the debate weighs the experts' own votes instead."""
    if composite is None or not composite.families:
        return None
    families = {f.expert: f for f in composite.families}
    heard = [f for f in composite.families if _votes(f) and f.expert in summaries]
    missing = tuple(f.expert for f in composite.families if _votes(f) and f.expert not in summaries)
    heard_weight = sum(f.weight for f in heard)
    if not heard or heard_weight <= 0:
        return None
    complete = not missing
    contributions: list[Contribution] = []
    non_votes: dict[str, NonVote] = {}
    for name, summary in summaries.items():
        family = families.get(name)
        if family is not None and family.score is not None and _votes(family):
            weight = family.weight if complete else family.weight / heard_weight
            contribution = family.contribution if complete else weight * family.score
            signal, confidence = expert_side(family.percentile)
            contributions.append(
                Contribution(
                    expert=name,
                    signal=signal,
                    confidence=confidence,
                    weight=round(weight, 6),
                    contribution=round(contribution, 6),
                    percentile=family.percentile,
                    votes=True,
                )
            )
            continue
        stance = stance_of(summary.signal)
        non_votes[name] = _non_vote(name, family)
        contributions.append(
            Contribution(
                expert=name,
                signal=stance.value if stance is not None else "NEUTRAL",
                confidence=summary.confidence,
                weight=0.0,
                contribution=0.0,
                votes=False,
                note=non_votes[name],
            )
        )
    if complete:
        score, rank, coverage = composite.score, composite.universe_rank, composite.coverage
    else:
        score = round(max(-1.0, min(1.0, sum(c.contribution for c in contributions))), 6)
        rank, coverage = None, round(composite.coverage * heard_weight, 6)
    ranked, confidence = standing_side(score, rank, coverage)
    direction, held_back = _held_back(ranked, score, contributions)
    return StandingWeighing(
        score=score,
        universe_rank=rank,
        coverage=coverage,
        complete=complete,
        contributions=tuple(contributions),
        direction=direction,
        confidence=confidence,
        ranked_side=ranked,
        held_back=held_back,
        non_votes=non_votes,
        missing=missing,
    )


def _held_back(ranked: Side, score: float, contributions: list[Contribution]) -> tuple[Side, HeldBack | None]:
    """The rank rule's side, unless the score lacks its sign or no voting expert stands on it."""
    if ranked == "NEUTRAL":
        return ranked, None
    sign = 1.0 if ranked == "BULLISH" else -1.0
    if sign * score <= 0:
        return "NEUTRAL", "score_sign"
    if not any(c.votes and c.signal == ranked for c in contributions):
        return "NEUTRAL", "no_expert_on_side"
    return ranked, None
