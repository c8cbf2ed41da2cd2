"""A-share daily price limits, and whether a day opened at one (an order on that side could not be filled).

Limits by board, as a fraction of the previous close: main boards of Shanghai and Shenzhen ±10 %, ChiNext
(``300xxx``/``301xxx``.SZ) ±20 % from 2020-08-24 (±10 % before), STAR (``688xxx``/``689xxx``.SH) ±20 %, Beijing
(``.BJ``) ±30 %. ST names (±5 %) cannot be told from the symbol and are treated as their board; Hong Kong and
US stocks have no daily limit.

Example::

    daily_limit("300750.SZ", date(2024, 1, 2))  # 0.2
    opened_at_limit("600519.SH", previous_close=100.0, open_price=110.0, day=date(2024, 1, 2))  # "up"
"""

from __future__ import annotations

from datetime import date
from typing import Literal

CHINEXT_WIDER_LIMIT_FROM = date(2020, 8, 24)
"""ChiNext's registration reform: its daily limit went from ±10 % to ±20 % on this day."""
LIMIT_TOLERANCE = 0.003
"""An open within this fraction of the limit counts as at it: limit prices are rounded to the fen, and the
snapshot's bars are forward-adjusted, so the ratio to the previous close is the limit only to about 0.3 %."""

LimitSide = Literal["up", "down"]


def daily_limit(symbol: str, day: date) -> float | None:
    """The board's daily limit (a fraction of the previous close) on ``day``; None for a market without one."""
    code, _, market = symbol.strip().upper().partition(".")
    if market not in ("SH", "SZ", "BJ") or len(code) != 6:
        return None
    if market == "BJ":
        return 0.30
    if market == "SH" and code.startswith(("688", "689")):
        return 0.20
    if market == "SZ" and code.startswith(("300", "301")):
        return 0.20 if day >= CHINEXT_WIDER_LIMIT_FROM else 0.10
    return 0.10


def opened_at_limit(symbol: str, *, previous_close: float, open_price: float, day: date) -> LimitSide | None:
    """``up`` when ``day`` opened at its limit-up price (no buyer was filled at the open), ``down`` at its
    limit-down price (no seller was), else None (also without a limit or a previous close)."""
    limit = daily_limit(symbol, day)
    if limit is None or previous_close <= 0:
        return None
    change = open_price / previous_close - 1.0
    if change >= limit - LIMIT_TOLERANCE:
        return "up"
    if change <= -limit + LIMIT_TOLERANCE:
        return "down"
    return None


def blocks(side: int, at_limit: LimitSide | None) -> bool:
    """Whether an order on ``side`` (1 buy, -1 sell) could not be filled at an open ``at_limit``."""
    return (side > 0 and at_limit == "up") or (side < 0 and at_limit == "down")
