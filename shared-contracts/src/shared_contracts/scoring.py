"""How a verdict did, from the daily bars after it: one method for the evaluation report and the live scorecard.

The method (docs/evaluation.md):

- the signal is the close of the research's ``as_of`` day (the verdict's reference close); the trade enters at
  the **next open** (the first bar after that day). A BUY whose entry day opens at its limit-up price, or a SELL
  at its limit-down price (A-shares, ``shared_contracts.price_limits``), is not filled: ``no_fill``;
- it is held ``HOLDING_DAYS[time_horizon]`` trading days, the entry day included, and pays a round-trip cost
  (``ROUND_TRIP_COST`` unless given) on its call and realised return;
- BUY is long; SELL is scored as the bearish call it is (short, levels mirrored) and, for an A-share
  investor who cannot short freely, realised as exit/avoid (flat, ``realised_return`` 0); HOLD is flat;
- stop and take-profit are set from the entry price and checked on each day's high and low: a day that opens
  past a level exits at the open; a day that touches both exits at the stop; otherwise the trade exits at the
  close of the last day.

``forward_return`` is the stock's return over the next ``IC_HORIZON_DAYS`` trading days entered at the next
open, whatever the verdict: what the verdict's score is ranked against (the information coefficient).

Whether a call was right, what the verdict's confidence is the probability of: a BUY or SELL when its trade was
``profitable`` (a SELL scored as the short it calls for, even where it is realised flat); a HOLD when the long
trade it declined, entered at the next open and held ``HOLD_HORIZON_DAYS`` trading days, would not have made
money after the round-trip cost (``hold_right``).

Example::

    outcome = score_trade(bars, entry_day=date(2024, 6, 28), action="BUY", time_horizon="SHORT_TERM",
                          stop_percent=-5.0, take_profit_percent=10.0, symbol="600519.SH")
    outcome.exit_reason  # "stop", "target" or "horizon"; outcome.status "pending" before the horizon ends
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from shared_contracts.price_limits import LimitSide, blocks, opened_at_limit

HOLDING_DAYS = {"SHORT_TERM": 20, "MEDIUM_TERM": 60, "LONG_TERM": 120}
"""Trading days a verdict is held for, by its ``time_horizon`` (the entry day included)."""
IC_HORIZON_DAYS = 20
"""Trading days of the forward return the verdict's score is ranked against."""
ROUND_TRIP_COST = 0.003
"""What a trade pays to enter and leave (commission, stamp duty, spread), as a fraction of its value."""
HOLD_HORIZON_DAYS = HOLDING_DAYS["SHORT_TERM"]
"""Trading days of the long trade a HOLD declined (a HOLD is a SHORT_TERM verdict: revisit soon)."""

MAX_ENTRY_LAG_DAYS = 14
"""A verdict whose reference close is more than this many calendar days before its analysis date (a halt, a gap in
the data, a date past the last bar) could not have been traded after that close: it is not scored, and a
portfolio does not take its position. Two weeks span the longest exchange holidays."""

ExitReason = Literal["stop", "target", "horizon"]
Status = Literal["scored", "pending", "not_scorable", "no_fill"]


@dataclass(frozen=True)
class DailyBar:
    day: date
    open: float
    high: float
    low: float
    close: float
    volume: float | None = None
    """Shares traded that day, when the source has it (the liquidity benchmark's traded value: close × volume)."""


@dataclass(frozen=True)
class TradeOutcome:
    status: Status
    action: str
    entry_day: date | None = None
    """The day of the entry open (the first bar after the signal close); the signal day while none exists."""
    entry_price: float | None = None
    exit_day: date | None = None
    exit_price: float | None = None
    exit_reason: ExitReason | None = None
    holding_days: int = 0
    call_return: float | None = None
    """The directional call's return after the round-trip cost: long for BUY, short for SELL, None for HOLD."""
    realised_return: float | None = None
    """What the position earns after costs: BUY long, SELL flat (exit/avoid) unless shorting is allowed, HOLD 0."""
    underlying_return: float | None = None
    """The stock over the same days, entry open to exit price, before costs."""
    reason: str = ""
    """Why the outcome is pending, not scorable or not filled."""

    @property
    def profitable(self) -> bool | None:
        """Whether the call made money (BUY and SELL); None for HOLD or an unscored trade."""
        return None if self.call_return is None or self.status != "scored" else self.call_return > 0


@dataclass(frozen=True)
class ForwardReturn:
    """The stock's return from the open after the signal day to the close ``days`` trading days later (the
    entry day included), before costs, and whether that open was at a daily limit."""

    entry_day: date
    entry_price: float
    exit_day: date
    value: float
    at_limit: LimitSide | None


def stale_entry(entry_day: date, analysis_day: date | None) -> str | None:
    """Why a verdict priced on ``entry_day`` cannot be traded on ``analysis_day``; None when it can."""
    if analysis_day is None or (analysis_day - entry_day).days <= MAX_ENTRY_LAG_DAYS:
        return None
    return (
        f"the reference close of {entry_day.isoformat()} is {(analysis_day - entry_day).days} days before the "
        f"analysis date {analysis_day.isoformat()}: no trade could be entered after it"
    )


def _entry_index(bars: Sequence[DailyBar], entry_day: date) -> int | None:
    """The last bar on or before ``entry_day``."""
    index = None
    for i, bar in enumerate(bars):
        if bar.day > entry_day:
            break
        index = i
    return index


def forward_return(
    bars: Sequence[DailyBar],
    *,
    signal_day: date,
    symbol: str = "",
    days: int = IC_HORIZON_DAYS,
    analysis_day: date | None = None,
) -> ForwardReturn | None:
    """The return entered at the open after the last bar on or before ``signal_day``, held ``days`` bars; None
    while fewer bars exist, without a signal bar, or when the signal close is stale for ``analysis_day``."""
    signal = _entry_index(bars, signal_day)
    if signal is None or stale_entry(bars[signal].day, analysis_day) is not None:
        return None
    window = bars[signal + 1 : signal + 1 + days]
    if len(window) < days or window[0].open <= 0:
        return None
    entry = window[0]
    at_limit = opened_at_limit(symbol, previous_close=bars[signal].close, open_price=entry.open, day=entry.day)
    return ForwardReturn(entry.day, entry.open, window[-1].day, window[-1].close / entry.open - 1.0, at_limit)


def hold_right(
    bars: Sequence[DailyBar],
    *,
    signal_day: date,
    symbol: str = "",
    analysis_day: date | None = None,
    cost: float = ROUND_TRIP_COST,
) -> bool | None:
    """Whether a HOLD was right: the long trade it declined — entered at the open after the last bar on or before
    ``signal_day``, left at the close of the ``HOLD_HORIZON_DAYS``-th bar (the entry day included), no stop or
    target — would not have made money after the round-trip ``cost`` (its return − ``cost`` ≤ 0). None while
    those bars have not all passed, for a stale signal close (``analysis_day``), and when the entry opened at
    its limit-up price (the long could not have been filled, as a BUY's ``no_fill``)."""
    forward = forward_return(
        bars, signal_day=signal_day, symbol=symbol, days=HOLD_HORIZON_DAYS, analysis_day=analysis_day
    )
    if forward is None or forward.at_limit == "up":
        return None
    return forward.value - cost <= 0


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
    symbol: str = "",
    cost: float = ROUND_TRIP_COST,
) -> TradeOutcome:
    """Score one verdict on ``bars`` (oldest first). ``entry_day`` is the signal day: the trade enters at the open
    of the first bar after the last bar on or before it. ``stop_percent`` / ``take_profit_percent`` are the
    verdict's signed ``percent_from_entry``; only their size is used, the side follows from the action.
    ``symbol`` decides the daily limits (none when empty); ``cost`` is the round trip's. With ``analysis_day``, a
    verdict priced on a close too long before it (``stale_entry``) is ``not_scorable``."""
    signal = _entry_index(bars, entry_day)
    if signal is None:
        return TradeOutcome("not_scorable", action, reason=f"no bar on or before {entry_day.isoformat()}")
    if (stale := stale_entry(bars[signal].day, analysis_day)) is not None:
        return TradeOutcome("not_scorable", action, bars[signal].day, bars[signal].close, reason=stale)
    if time_horizon not in HOLDING_DAYS:
        return TradeOutcome("not_scorable", action, reason=f"unknown time horizon {time_horizon!r}")
    holding = HOLDING_DAYS[time_horizon]
    if signal + 1 >= len(bars):
        return TradeOutcome(
            "pending", action, bars[signal].day, reason=f"0 of {holding} trading days have passed (no next open yet)"
        )
    entry = bars[signal + 1]
    side = 1 if action == "BUY" else -1 if action == "SELL" else 0
    at_limit = opened_at_limit(symbol, previous_close=bars[signal].close, open_price=entry.open, day=entry.day)
    if blocks(side, at_limit):
        return TradeOutcome(
            "no_fill", action, entry.day, entry.open, reason=f"{entry.day.isoformat()} opened limit-{at_limit}"
        )
    window = bars[signal + 1 : signal + 1 + holding]
    stop = entry.open * (1 - side * abs(stop_percent) / 100.0)
    target = entry.open * (1 + side * abs(take_profit_percent) / 100.0)
    exit_bar, exit_price, reason = None, None, None
    for held, bar in enumerate(window, start=1):
        if side == 0:
            break
        hit = _exit_on(bar, side, stop, target)
        if hit is not None:
            exit_bar, (exit_price, reason) = held, hit
            break
    if exit_bar is None:
        if len(window) < holding:
            return TradeOutcome(
                "pending",
                action,
                entry.day,
                entry.open,
                reason=f"{len(window)} of {holding} trading days have passed",
            )
        exit_bar, exit_price, reason = len(window), window[-1].close, "horizon"
    assert exit_price is not None
    last = window[exit_bar - 1]
    underlying = exit_price / entry.open - 1.0
    call = None if side == 0 else side * underlying - cost
    realised = 0.0 if side == 0 or (side < 0 and not allow_short) else call
    return TradeOutcome(
        "scored",
        action,
        entry.day,
        entry.open,
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
