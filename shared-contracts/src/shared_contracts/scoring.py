"""How a verdict did, from the daily bars after it: one method for the evaluation report and the live scorecard.

The method (docs/evaluation.md):

- entry at the close of the research's ``as_of`` day (the verdict's reference close);
- a holding period of ``HOLDING_DAYS[time_horizon]`` trading days after the entry;
- BUY is long; SELL is scored as the bearish call it is (short, levels mirrored) and, for an A-share
  investor who cannot short freely, realised as exit/avoid (flat, ``realised_return`` 0); HOLD is flat;
- stop and take-profit are checked on each day's high and low: a day that opens past a level exits at the
  open; a day that touches both exits at the stop; otherwise the trade exits at the close of the last day.

Example::

    outcome = score_trade(bars, entry_day=date(2024, 6, 28), action="BUY", time_horizon="SHORT_TERM",
                          stop_percent=-5.0, take_profit_percent=10.0)
    outcome.exit_reason  # "stop", "target" or "horizon"; outcome.status "pending" before the horizon ends
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

HOLDING_DAYS = {"SHORT_TERM": 20, "MEDIUM_TERM": 60, "LONG_TERM": 120}
"""Trading days a verdict is held for, by its ``time_horizon``."""

MAX_ENTRY_LAG_DAYS = 14
"""A verdict whose reference close is more than this many calendar days before its analysis date (a halt, a gap in
the data, a date past the last bar) could not have been traded at that close: it is not scored, and a portfolio
does not take its position. Two weeks span the longest exchange holidays."""

ExitReason = Literal["stop", "target", "horizon"]
Status = Literal["scored", "pending", "not_scorable"]


@dataclass(frozen=True)
class DailyBar:
    day: date
    open: float
    high: float
    low: float
    close: float


@dataclass(frozen=True)
class TradeOutcome:
    status: Status
    action: str
    entry_day: date | None = None
    entry_price: float | None = None
    exit_day: date | None = None
    exit_price: float | None = None
    exit_reason: ExitReason | None = None
    holding_days: int = 0
    call_return: float | None = None
    """The directional call's return: long for BUY, short for SELL, None for HOLD."""
    realised_return: float | None = None
    """What the position earns: BUY long, SELL flat (exit/avoid) unless shorting is allowed, HOLD 0."""
    underlying_return: float | None = None
    """The stock over the same days, entry close to exit price."""
    reason: str = ""
    """Why the outcome is pending or not scorable."""

    @property
    def profitable(self) -> bool | None:
        """Whether the call made money (BUY and SELL); None for HOLD or an unscored trade."""
        return None if self.call_return is None or self.status != "scored" else self.call_return > 0


def stale_entry(entry_day: date, analysis_day: date | None) -> str | None:
    """Why a verdict priced on ``entry_day`` cannot be traded on ``analysis_day``; None when it can."""
    if analysis_day is None or (analysis_day - entry_day).days <= MAX_ENTRY_LAG_DAYS:
        return None
    return (
        f"the reference close of {entry_day.isoformat()} is {(analysis_day - entry_day).days} days before the "
        f"analysis date {analysis_day.isoformat()}: no trade could be entered at it"
    )


def _entry_index(bars: Sequence[DailyBar], entry_day: date) -> int | None:
    """The last bar on or before ``entry_day``."""
    index = None
    for i, bar in enumerate(bars):
        if bar.day > entry_day:
            break
        index = i
    return index


def score_trade(
    bars: Sequence[DailyBar],
    *,
    entry_day: date,
    action: str,
    time_horizon: str,
    stop_percent: float,
    take_profit_percent: float,
    allow_short: bool = False,
    analysis_day: date | None = None,
) -> TradeOutcome:
    """Score one verdict on ``bars`` (oldest first). ``stop_percent`` / ``take_profit_percent`` are the verdict's
    signed ``percent_from_entry``; only their size is used, the side follows from the action. With
    ``analysis_day``, a verdict priced on a close too long before it (``stale_entry``) is ``not_scorable``."""
    start = _entry_index(bars, entry_day)
    if start is None:
        return TradeOutcome("not_scorable", action, reason=f"no bar on or before {entry_day.isoformat()}")
    if (stale := stale_entry(bars[start].day, analysis_day)) is not None:
        return TradeOutcome("not_scorable", action, bars[start].day, bars[start].close, reason=stale)
    if time_horizon not in HOLDING_DAYS:
        return TradeOutcome("not_scorable", action, reason=f"unknown time horizon {time_horizon!r}")
    entry = bars[start]
    window = bars[start + 1 : start + 1 + HOLDING_DAYS[time_horizon]]
    side = 1 if action == "BUY" else -1 if action == "SELL" else 0
    stop = entry.close * (1 - side * abs(stop_percent) / 100.0)
    target = entry.close * (1 + side * abs(take_profit_percent) / 100.0)
    exit_bar, exit_price, reason = None, None, None
    for held, bar in enumerate(window, start=1):
        if side == 0:
            break
        hit = _exit_on(bar, side, stop, target)
        if hit is not None:
            exit_bar, (exit_price, reason) = held, hit
            break
    if exit_bar is None:
        if len(window) < HOLDING_DAYS[time_horizon]:
            return TradeOutcome(
                "pending",
                action,
                entry.day,
                entry.close,
                reason=f"{len(window)} of {HOLDING_DAYS[time_horizon]} trading days have passed",
            )
        exit_bar, exit_price, reason = len(window), window[-1].close, "horizon"
    assert exit_price is not None
    last = window[exit_bar - 1]
    underlying = exit_price / entry.close - 1.0
    call = None if side == 0 else side * underlying
    realised = 0.0 if side == 0 or (side < 0 and not allow_short) else call
    return TradeOutcome(
        "scored",
        action,
        entry.day,
        entry.close,
        last.day,
        exit_price,
        reason,
        exit_bar,
        call,
        realised,
        underlying,
    )


def _exit_on(bar: DailyBar, side: int, stop: float, target: float) -> tuple[float, ExitReason] | None:
    """The exit a day gives (price, reason), or None. Long: side 1 (stop below, target above); short: -1."""

    def beyond(price: float, level: float, upward: bool) -> bool:
        return price >= level if upward else price <= level

    stop_up, target_up = side < 0, side > 0
    if beyond(bar.open, stop, stop_up):
        return bar.open, "stop"
    if beyond(bar.open, target, target_up):
        return bar.open, "target"
    stop_touched = beyond(bar.high if stop_up else bar.low, stop, stop_up)
    if stop_touched:
        return stop, "stop"
    if beyond(bar.high if target_up else bar.low, target, target_up):
        return target, "target"
    return None


def period_return(
    bars: Sequence[DailyBar],
    *,
    start_day: date,
    end_day: date,
    exposure: float,
    stop_percent: float | None = None,
    take_profit_percent: float | None = None,
) -> float:
    """A sleeve's return from the close of ``start_day`` to the close of ``end_day`` holding ``exposure`` (signed
    fraction of the sleeve) of the stock, leaving early at the stop or take-profit when given; 0 without bars."""
    start = _entry_index(bars, start_day)
    end = _entry_index(bars, end_day)
    if start is None or end is None or end <= start or exposure == 0:
        return 0.0
    entry = bars[start].close
    side = 1 if exposure > 0 else -1
    stop = entry * (1 - side * abs(stop_percent) / 100.0) if stop_percent is not None else None
    target = entry * (1 + side * abs(take_profit_percent) / 100.0) if take_profit_percent is not None else None
    exit_price = bars[end].close
    for bar in bars[start + 1 : end + 1]:
        never_stop, never_target = -side * math.inf, side * math.inf
        hit = _exit_on(bar, side, never_stop if stop is None else stop, never_target if target is None else target)
        if hit is not None:
            exit_price = hit[0]
            break
    return exposure * (exit_price / entry - 1.0)
