"""The debate's vocabularies (debate spec, "Domain 枚举定义"): the direction, and the level of a risk or an
argument (``RiskLevel``, published in ``shared_contracts.debate``; the judge uses the same one)."""

from __future__ import annotations

from shared_contracts.debate import RiskLevel
from shared_contracts.experts import Signal

DebateDirection = Signal  # the resolution's overall direction: the experts' BULLISH / BEARISH / NEUTRAL

ArgumentStrength = RiskLevel  # how strongly the cited evidence supports an argument: HIGH / MEDIUM / LOW

__all__ = ["ArgumentStrength", "DebateDirection", "RiskLevel"]
