"""The debate's vocabularies (debate spec, "Domain 枚举定义")."""

from __future__ import annotations

from enum import StrEnum

from shared_contracts.experts import Signal

DebateDirection = Signal  # the resolution's overall direction: the experts' BULLISH / BEARISH / NEUTRAL


class RiskLevel(StrEnum):
    """Probability or impact of a risk in the risk matrix."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


ArgumentStrength = RiskLevel  # how strongly the cited evidence supports an argument: HIGH / MEDIUM / LOW
