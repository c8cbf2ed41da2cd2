"""The debate's vocabularies (debate spec, "Domain 枚举定义")."""

from __future__ import annotations

from enum import StrEnum


class DebateDirection(StrEnum):
    """The resolution's overall direction."""

    BULLISH = "BULLISH"
    BEARISH = "BEARISH"
    NEUTRAL = "NEUTRAL"


class RiskLevel(StrEnum):
    """Probability or impact of a risk in the risk matrix."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class ArgumentStrength(StrEnum):
    """How strongly the cited evidence supports an argument."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"
