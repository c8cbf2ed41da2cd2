"""The judge's vocabularies. Values equal the published ones in ``shared_contracts.judge`` / ``.debate``
(a unit test keeps them in step); the enums give code names (``Action.BUY``) instead of bare strings."""

from __future__ import annotations

from enum import StrEnum

from shared_contracts.experts import Signal

Direction = Signal  # the debate's overall direction: BULLISH / BEARISH / NEUTRAL


class Action(StrEnum):
    BUY = "BUY"
    SELL = "SELL"
    HOLD = "HOLD"


class TimeHorizon(StrEnum):
    SHORT_TERM = "SHORT_TERM"
    MEDIUM_TERM = "MEDIUM_TERM"
    LONG_TERM = "LONG_TERM"


class RiskLevel(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


def opposes(action: Action, direction: Direction) -> bool:
    """True when the action bets against the debate: BUY on BEARISH, SELL on BULLISH."""
    return (action is Action.BUY and direction is Direction.BEARISH) or (
        action is Action.SELL and direction is Direction.BULLISH
    )
