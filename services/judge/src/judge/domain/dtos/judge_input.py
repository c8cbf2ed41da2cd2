"""JudgeInput: what the judge decides on (the coordinator's debate_outcome mapping, plus the optional
price context the coordinator takes from the technical analyst)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date

from judge.domain.exceptions import InvalidJudgeInputError, InvalidSymbolError, SymbolRequiredError
from judge.domain.model.enums import Direction

_SYMBOL = re.compile(r"^[A-Za-z0-9._:^=\-]{1,32}$")


@dataclass(frozen=True)
class KeyLevels:
    """Support and resistance prices (the technical analyst's ``key_technical_levels``)."""

    support: tuple[float, ...] = ()
    resistance: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        for price in (*self.support, *self.resistance):
            if not (math.isfinite(price) and price > 0):
                raise InvalidJudgeInputError(f"key levels must be positive prices, got {price!r}")


@dataclass(frozen=True)
class JudgeInput:
    symbol: str
    direction: Direction
    confidence: float
    bull_thesis: str
    bear_thesis: str
    risk_factors: tuple[str, ...] = ()
    key_disagreements: tuple[str, ...] = ()
    conflict_resolution: str = ""
    reference_price: float | None = None
    key_levels: KeyLevels = field(default_factory=KeyLevels)
    reference_date: date | None = None
    """The trading day whose close ``reference_price`` is, when the caller knows it."""
    failed_experts: tuple[str, ...] = ()
    """Experts the research asked for that failed: what the verdict could not hear."""

    def __post_init__(self) -> None:
        if not self.symbol.strip():
            raise SymbolRequiredError("symbol is required")
        if not _SYMBOL.match(self.symbol.strip()):
            raise InvalidSymbolError(
                f"symbol {self.symbol[:40]!r} is not a ticker (1-32 of letters, digits and . _ : ^ = -)"
            )
        if not isinstance(self.direction, Direction):
            raise InvalidJudgeInputError(f"direction must be one of {[d.value for d in Direction]}")
        if not (math.isfinite(self.confidence) and 0.0 <= self.confidence <= 1.0):
            raise InvalidJudgeInputError(f"confidence must be between 0 and 1, got {self.confidence!r}")
        if self.reference_price is not None and not (math.isfinite(self.reference_price) and self.reference_price > 0):
            raise InvalidJudgeInputError(f"reference_price must be a positive price, got {self.reference_price!r}")

    @property
    def named_risks(self) -> tuple[str, ...]:
        """Risk factors with blank and repeated entries dropped (what the rules count and list)."""
        return tuple(dict.fromkeys(r.strip() for r in self.risk_factors if r.strip()))

    @property
    def risk_count(self) -> int:
        """The named risks, plus one for missing coverage when experts failed (the rules size by it)."""
        return len(self.named_risks) + (1 if self.failed_experts else 0)

    @property
    def named_disagreements(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.strip() for d in self.key_disagreements if d.strip()))
