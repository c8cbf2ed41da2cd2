"""DebateInput: what the debate reads — the symbol and one normalized summary per successful expert.

``ExpertSummary`` is the shared projection's model (``shared_contracts.projection``), re-exported here: it
holds only ``signal``, ``confidence``, ``reasoning`` and ``risk_warning`` and forbids any other field, so the
research experts' bulk/debug fields (``input``, ``output``, ``*_indicators``, ...) cannot reach the debate.
Beside the summaries (and outside them), optional: each expert's data quality (counts of its data gaps and
stale inputs) and the experts that were asked for but failed — from which ``panel()`` builds the evidence.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from debate.domain.dtos.evidence import EvidencePanel, ExpertEvidence, coverage_of
from debate.domain.dtos.standing_weighing import StandingWeighing, weigh_standing
from shared_contracts.debate import EXPERT_NAME_PATTERN as EXPERT_NAME
from shared_contracts.debate import MAX_DEBATE_EXPERTS, TICKER_PATTERN
from shared_contracts.echo import echo
from shared_contracts.experts import Signal, stance_of
from shared_contracts.projection import ExpertDataQuality, ExpertSummary
from shared_contracts.standing import CompositeStanding

__all__ = ["EXPERT_NAME_PATTERN", "MAX_EXPERTS", "SYMBOL_PATTERN", "DebateInput", "ExpertDataQuality", "ExpertSummary"]

# A symbol (600519.SH, AAPL, BRK.B) and the expert names appear in prompts and texts unfenced.
SYMBOL_PATTERN = re.compile(f"^{TICKER_PATTERN}$")
EXPERT_NAME_PATTERN = re.compile(f"^{EXPERT_NAME}$")
MAX_EXPERTS = MAX_DEBATE_EXPERTS


class DebateInput(BaseModel):
    """``data_quality``: per answering expert, optional (an expert not listed had all its data);
    ``failed_experts``: experts asked for that failed (missing evidence, which only lowers confidence)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    symbol: str = Field(min_length=1)
    expert_summaries: dict[str, ExpertSummary] = Field(min_length=1, max_length=MAX_EXPERTS)
    data_quality: dict[str, ExpertDataQuality] = Field(default_factory=dict)
    failed_experts: list[str] = Field(default_factory=list, max_length=MAX_EXPERTS)
    composite: CompositeStanding | None = None
    """The stock's composite standing in its reference universe, when the research computed one."""

    @field_validator("symbol")
    @classmethod
    def _symbol_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not SYMBOL_PATTERN.match(value):
            raise ValueError(f"symbol {echo(value)} must match {SYMBOL_PATTERN.pattern}")
        return value

    @field_validator("expert_summaries")
    @classmethod
    def _names_and_signals(cls, value: dict[str, ExpertSummary]) -> dict[str, ExpertSummary]:
        for name, summary in value.items():
            if not EXPERT_NAME_PATTERN.match(name):
                raise ValueError(f"expert name {echo(name)} must match {EXPERT_NAME_PATTERN.pattern}")
            if stance_of(summary.signal) is None:
                raise ValueError(f"{name}: unknown signal {summary.signal!r}")
        return value

    @model_validator(mode="after")
    def _quality_and_failures_name_the_right_experts(self) -> DebateInput:
        unknown = [name for name in self.data_quality if name not in self.expert_summaries]
        if unknown:
            raise ValueError(f"data_quality names experts without a summary: {', '.join(unknown)}")
        for name in self.failed_experts:
            if not EXPERT_NAME_PATTERN.match(name):
                raise ValueError(f"failed expert name {echo(name)} must match {EXPERT_NAME_PATTERN.pattern}")
            if name in self.expert_summaries:
                raise ValueError(f"{name} is both a failed expert and one with a result")
        if len(set(self.failed_experts)) != len(self.failed_experts):
            raise ValueError("failed_experts names an expert twice")
        return self

    def panel(self) -> EvidencePanel:
        """The evidence: each answering expert's stance, confidence and coverage; the failed experts."""
        experts = {}
        for name, summary in self.expert_summaries.items():
            quality = self.data_quality.get(name, ExpertDataQuality())
            experts[name] = ExpertEvidence(
                stance=self.stance(name),
                confidence=summary.confidence,
                coverage=coverage_of(quality),
                data_gaps=quality.data_gaps,
                staleness=quality.staleness,
            )
        return EvidencePanel(experts=experts, failed_experts=list(self.failed_experts))

    def weighing(self) -> StandingWeighing | None:
        """The experts weighed by their standings in the reference universe (``standing_weighing``); None when
        the composite has no families to weigh or none of its voting experts was heard."""
        return weigh_standing(self.expert_summaries, self.composite)

    def stance(self, expert: str) -> Signal:
        """The expert's verdict as BULLISH/BEARISH/NEUTRAL (validated at construction)."""
        stance = stance_of(self.expert_summaries[expert].signal)
        assert stance is not None
        return stance
