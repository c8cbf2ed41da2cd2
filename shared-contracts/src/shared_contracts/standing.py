"""Wire models of relative evidence: where a stock stands against its reference universe on the analysis day.

An expert result carries its own factors' standing (``RelativeStanding``); the research service's composite of
all factor families (``CompositeStanding``) rides along, and the debate and the judge decide on it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.experts import IsoDate


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


class CompositeStanding(BaseModel):
    """The fixed composite of every factor family (docs/decisions.md, "Stock-specific composite")."""

    model_config = ConfigDict(extra="forbid")

    score: float = Field(
        ge=-1.0, le=1.0, allow_inf_nan=False, description="Σ w·sign·(2p−1) / Σ w over factors with data."
    )
    universe_rank: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Mid-rank percentile of the score among the universe's scores."
    )
    coverage: float = Field(ge=0.0, le=1.0, description="Share of the composite's weight that had data.")
    factors_used: list[str] = Field(default_factory=list)
    universe_scored: int = Field(ge=0, description="Universe symbols with a composite score on the day.")


class RelativeStanding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    universe: str = Field(description="Which reference universe: the offline snapshot's symbols or a configured list.")
    universe_size: int = Field(ge=0, description="Symbols in the universe with any data public on the day.")
    as_of: IsoDate = Field(description="The analysis day of the cross-section.")
    factors: dict[str, FactorStanding] = Field(default_factory=dict, description="This expert's factors.")
    coverage: float = Field(ge=0.0, le=1.0, description="Share of this expert's factors with data for the stock.")
    composite: CompositeStanding | None = None
