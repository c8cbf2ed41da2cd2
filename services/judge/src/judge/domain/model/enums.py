"""The judge's vocabularies: the published ``Action`` and ``TimeHorizon`` (``shared_contracts.judge``), the debate's
``Direction`` and ``RiskLevel``, and which actions bet against the debate."""

from __future__ import annotations

from shared_contracts.debate import RiskLevel
from shared_contracts.experts import Signal
from shared_contracts.judge import Action, TimeHorizon

Direction = Signal  # the debate's overall direction: BULLISH / BEARISH / NEUTRAL

__all__ = ["Action", "Direction", "RiskLevel", "TimeHorizon", "opposes"]


def opposes(action: Action, direction: Direction) -> bool:
    """True when the action bets against the debate: BUY on BEARISH, SELL on BULLISH."""
    return (action is Action.BUY and direction is Direction.BEARISH) or (
        action is Action.SELL and direction is Direction.BULLISH
    )
