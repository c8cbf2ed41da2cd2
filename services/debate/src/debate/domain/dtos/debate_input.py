"""DebateInput: what the debate reads — the symbol and one normalized summary per successful expert.

``ExpertSummary`` is the shared projection's model (``shared_contracts.projection``), re-exported here: it
holds only ``signal``, ``confidence``, ``reasoning`` and ``risk_warning`` and forbids any other field, so the
research experts' bulk/debug fields (``input``, ``output``, ``*_indicators``, ...) cannot reach the debate.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shared_contracts.experts import Signal, stance_of
from shared_contracts.projection import ExpertSummary

__all__ = ["EXPERT_NAME_PATTERN", "MAX_EXPERTS", "SYMBOL_PATTERN", "DebateInput", "ExpertSummary"]

SYMBOL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,31}$")
"""A ticker-like code (``600519.SH``, ``AAPL``, ``BRK.B``); it appears in prompts and texts unfenced."""

EXPERT_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
"""Expert names appear in prompts and texts, so they are plain identifiers."""

MAX_EXPERTS = 10


class DebateInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    symbol: str = Field(min_length=1)
    expert_summaries: dict[str, ExpertSummary] = Field(min_length=1, max_length=MAX_EXPERTS)

    @field_validator("symbol")
    @classmethod
    def _symbol_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not SYMBOL_PATTERN.match(value):
            raise ValueError(f"symbol {value!r} must match {SYMBOL_PATTERN.pattern}")
        return value

    @field_validator("expert_summaries")
    @classmethod
    def _names_and_signals(cls, value: dict[str, ExpertSummary]) -> dict[str, ExpertSummary]:
        for name, summary in value.items():
            if not EXPERT_NAME_PATTERN.match(name):
                raise ValueError(f"expert name {name!r} must match {EXPERT_NAME_PATTERN.pattern}")
            if stance_of(summary.signal) is None:
                raise ValueError(f"{name}: unknown signal {summary.signal!r}")
        return value

    def stance(self, expert: str) -> Signal:
        """The expert's verdict as BULLISH/BEARISH/NEUTRAL (validated at construction)."""
        stance = stance_of(self.expert_summaries[expert].signal)
        assert stance is not None
        return stance
