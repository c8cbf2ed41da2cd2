"""Wire models of relative evidence: where a stock stands against its reference universe on the analysis day.

An expert result carries its own factors' standing (``RelativeStanding``); the research service's composite of
all factor families (``CompositeStanding``) rides along, and the debate and the judge decide on it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.experts import IsoDate, JsonInt

SignedUnit = Annotated[float, Field(ge=-1.0, le=1.0, allow_inf_nan=False)]
"""A number in [-1, 1]: a composite score."""
UnitShare = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
"""A number in [0, 1]: a percentile, a coverage, a share of exposure."""


class FactorStanding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: float | None = Field(description="The factor's value on the day (None: no data for this stock).")
    percentile: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Mid-rank share of the universe's values below it (0-1)."
    )
    bullish_when: Literal["high", "low"]
    weight: float = Field(ge=0.0, le=1.0, description="Its weight in the composite; 0: evidence only, not scored.")
    universe_with_data: int = Field(ge=0, description="Universe symbols that have this factor on the day.")
    description: str


Family = Literal["technical", "valuation", "financial"]
FAMILY_EXPERTS: dict[str, str] = {
    "technical": "technical_analyst",
    "valuation": "valuation_modeler",
    "financial": "financial_auditor",
}
"""Which expert votes with each factor family of the composite; every other expert does not vote."""


class FamilyStanding(BaseModel):
    """One factor family's part of the composite: the expert that votes with it stands where this family puts
    the stock. ``weight × score`` is its ``contribution``, and the contributions of the families sum to the
    composite's score (the composite is the weighted mean of its families)."""

    model_config = ConfigDict(extra="forbid")

    family: Family
    expert: str = Field(description="The expert whose vote this family is (FAMILY_EXPERTS).")
    score: SignedUnit | None = Field(
        strict=True, description="Σ w·sign·(2p−1) / Σ w over this family's weighted factors with data (None: none)."
    )
    percentile: UnitShare | None = Field(
        strict=True,
        description="The family's score placed among the universe's composite scores on the day: where this "
        "dimension alone would rank the stock (None without data).",
    )
    weight: UnitShare = Field(strict=True, description="Σ w of the family's factors with data / Σ w of all with data.")
    contribution: SignedUnit = Field(strict=True, description="weight × score: its part of the composite score.")


class CompositeStanding(BaseModel):
    """The fixed composite of every factor family (docs/decisions.md, "Stock-specific composite"). Strict: a
    debate request may carry one, and a boolean or a numeric string is no number."""

    model_config = ConfigDict(extra="forbid")

    score: SignedUnit = Field(strict=True, description="Σ w·sign·(2p−1) / Σ w over the factors with data.")
    universe_rank: UnitShare | None = Field(
        default=None, strict=True, description="Mid-rank percentile of the score among the universe's scores."
    )
    coverage: UnitShare = Field(strict=True, description="Share of the composite's weight that had data.")
    factors_used: list[str] = Field(default_factory=list)
    universe_scored: JsonInt = Field(ge=0, description="Universe symbols with a composite score on the day.")
    families: list[FamilyStanding] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="The score's parts by factor family; their contributions sum to it (left out when none).",
    )


class RelativeStanding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    universe: str = Field(description="Which reference universe: the offline snapshot's symbols or a configured list.")
    universe_size: int = Field(ge=0, description="Symbols in the universe with any data public on the day.")
    as_of: IsoDate = Field(description="The analysis day of the cross-section.")
    factors: dict[str, FactorStanding] = Field(default_factory=dict, description="This expert's factors.")
    coverage: float = Field(ge=0.0, le=1.0, description="Share of this expert's factors with data for the stock.")
    composite: CompositeStanding | None = None


TOP_RANK = 0.80
BOTTOM_RANK = 0.20
SCORE_EDGE = 0.35
"""Without a universe rank: about the in-sample top/bottom fifth of composite scores lies beyond ±0.35."""
MIN_STANDING_COVERAGE = 0.50
Side = Literal["BULLISH", "BEARISH", "NEUTRAL"]


def expert_side(percentile: float | None) -> tuple[Side, float]:
    """(signal, confidence) of a voting expert from where its family puts the stock (``FamilyStanding.percentile``):
    BULLISH in the top fifth, BEARISH in the bottom fifth, else NEUTRAL; confidence |2·p − 1|. Because the
    composite is a weighted mean of its families and both are placed among the same universe scores, a stock in
    the composite's top (bottom) fifth always has at least one family there: a BUY always has a bullish expert.
    No percentile (no data): NEUTRAL at 0, and the expert does not vote."""
    if percentile is None:
        return "NEUTRAL", 0.0
    strength = round(abs(2.0 * percentile - 1.0), 4)
    side: Side = "BULLISH" if percentile >= TOP_RANK else "BEARISH" if percentile <= BOTTOM_RANK else "NEUTRAL"
    return side, strength


def standing_side(score: float, universe_rank: float | None, coverage: float | None) -> tuple[Side, float]:
    """(side, strength) of a stock's standing, what the debate's direction and the judge's action follow:
    BULLISH when universe_rank ≥ ``TOP_RANK`` (the universe's top fifth), BEARISH when ≤ ``BOTTOM_RANK``, else
    NEUTRAL; without a rank, by score beyond ±``SCORE_EDGE``; NEUTRAL whatever the rank when the coverage is
    below ``MIN_STANDING_COVERAGE``. Strength: the distance from the universe's middle, |2·rank − 1| (|score|
    without a rank) — 0 at the median, 1 at either end; not a probability."""
    strength = round(abs(2.0 * universe_rank - 1.0) if universe_rank is not None else abs(score), 4)
    if coverage is not None and coverage < MIN_STANDING_COVERAGE:
        return "NEUTRAL", strength
    if universe_rank is not None:
        bullish, bearish = universe_rank >= TOP_RANK, universe_rank <= BOTTOM_RANK
    else:
        bullish, bearish = score >= SCORE_EDGE, score <= -SCORE_EDGE
    return ("BULLISH" if bullish else "BEARISH" if bearish else "NEUTRAL"), strength
