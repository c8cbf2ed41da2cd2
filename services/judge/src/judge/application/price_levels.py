"""Concrete stop-loss / take-profit levels: signed percent from entry, and a price when one is known.

A BUY (and a HOLD, which manages an existing long) has its stop below entry and its take-profit above;
a SELL (exit or short) the other way round. Prices are rounded to 2 decimals; below 1.0 to 4, and to four
significant digits below 0.001, so that a level never rounds onto the entry price."""

from __future__ import annotations

import math

from judge.domain.dtos.verdict_proposal import LevelProposal
from judge.domain.model.enums import Action
from shared_contracts.judge import PriceLevel


def price_levels(
    action: Action, stop: LevelProposal, take: LevelProposal, reference_price: float | None
) -> tuple[PriceLevel, PriceLevel]:
    sign = -1.0 if action is Action.SELL else 1.0
    return (
        _level(-sign * stop.distance_percent, stop.basis, reference_price),
        _level(sign * take.distance_percent, take.basis, reference_price),
    )


def _level(percent: float, basis: str, reference_price: float | None) -> PriceLevel:
    price = None
    if reference_price is not None:
        raw = reference_price * (1.0 + percent / 100.0)
        price = round(raw, _decimals(raw))
    return PriceLevel(percent_from_entry=round(percent, 2), price=price, basis=basis)


def _decimals(price: float) -> int:
    if price >= 1.0:
        return 2
    if price <= 0.0:  # a level of a reference price so tiny that it rounds to 0.0
        return 4
    return max(4, 3 - math.floor(math.log10(price)))
