"""The judge's vocabularies: the published ``Action`` and ``TimeHorizon`` (``shared_contracts.judge``), the debate's
``Direction`` and ``RiskLevel``, and which actions stand on the debate's side."""

from __future__ import annotations

from shared_contracts.debate import RiskLevel
from shared_contracts.experts import Signal
from shared_contracts.judge import Action, TimeHorizon

Direction = Signal  # the debate's overall direction: BULLISH / BEARISH / NEUTRAL

__all__ = ["Action", "Direction", "RiskLevel", "TimeHorizon", "on_side"]


def on_side(action: Action, direction: Direction) -> bool:
    """True when the action stands on the debate's side: BUY on BULLISH, SELL on BEARISH, HOLD on any."""
    return (
        action is Action.HOLD
        or (action is Action.BUY and direction is Direction.BULLISH)
        or (action is Action.SELL and direction is Direction.BEARISH)
    )
