"""What the catalyst detective judges: events detected in the data — earnings inflections, dividend changes,
price gaps, volume spikes and 52-week highs/lows — each with a polarity (+1 / -1 / 0), a weight, a date and the
figures that triggered it; news items (live providers only) are carried as unscored events."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from research.domain.analysis.financial import FinancialFacts
from research.domain.analysis.numbers import pct_change, rnd
from research.domain.model.market_data import Bar, NewsItem

WINDOW_BARS = 60
"""Price events are looked for in the last 60 trading days (about three months)."""
GAP_PCT = 2.0
VOLUME_SPIKE = 2.5
"""A day's volume at least 2.5 x the mean of the 20 sessions before it."""
VOLUME_BASE = 20
YEAR_BARS = 250
EARNINGS_SWING_PTS = 20.0
"""A change of the net-profit growth rate of 20 percentage points or more is an inflection."""
MAX_PER_KIND = 3
DIVIDEND_CHANGE_PCT = 5.0
"""A dividend per share at least 5 % above or below the previous year's."""
WEIGHTS = {
    "earnings_inflection": 2,
    "dividend_change": 1,
    "price_gap": 1,
    "volume_spike": 1,
    "52w_high": 1,
    "52w_low": 1,
    "news": 0,
}


@dataclass(frozen=True)
class CatalystEvent:
    kind: str
    polarity: int
    date: date
    figures: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    """Only for news: the headline as published (untrusted text)."""

    @property
    def weight(self) -> int:
        return WEIGHTS[self.kind]


@dataclass(frozen=True)
class CatalystFacts:
    symbol: str
    as_of: date
    events: tuple[CatalystEvent, ...]
    """Detected events, newest first (price events, then the annual-report ones)."""
    news: tuple[NewsItem, ...]
    inputs: tuple[str, ...]
    """The data categories the events come from, e.g. ``bars``, ``financials``, ``news``."""
    gaps: tuple[str, ...]

    @property
    def net_score(self) -> int:
        return sum(e.polarity * e.weight for e in self.events)


def detect_price_events(bars: tuple[Bar, ...] | list[Bar]) -> list[CatalystEvent]:
    """Gaps, volume spikes and new 52-week highs/lows in the last WINDOW_BARS bars (latest MAX_PER_KIND each)."""
    found: dict[str, list[CatalystEvent]] = {"price_gap": [], "volume_spike": [], "52w_high": [], "52w_low": []}
    bars = bars[max(0, len(bars) - WINDOW_BARS - YEAR_BARS - 1) :]  # the window, the year before it and one bar
    # Plain lists: the windows below are sliced and summed by C builtins, not generators over bars.
    highs, lows, volumes = [b.high for b in bars], [b.low for b in bars], [b.volume for b in bars]
    start = max(1, len(bars) - WINDOW_BARS)
    prior = prior_extremes(highs, lows, start, YEAR_BARS)
    for i in range(start, len(bars)):
        bar, prev = bars[i], bars[i - 1]
        change = rnd(pct_change(bar.close, prev.close), 2)
        gap_up = bar.low > prev.high * (1 + GAP_PCT / 100)
        if gap_up or bar.high < prev.low * (1 - GAP_PCT / 100):
            gap = rnd(pct_change(bar.low, prev.high) if gap_up else pct_change(bar.high, prev.low), 2)
            event = CatalystEvent("price_gap", 1 if gap_up else -1, bar.date, {"gap_pct": gap, "close": bar.close})
            found["price_gap"].append(event)
        if i >= VOLUME_BASE:
            base = sum(volumes[i - VOLUME_BASE : i]) / VOLUME_BASE
            if base > 0 and bar.volume >= VOLUME_SPIKE * base:
                polarity = 1 if (change or 0) > 0 else -1 if (change or 0) < 0 else 0
                figures = {"volume_multiple": rnd(bar.volume / base, 2), "change_pct": change}
                found["volume_spike"].append(CatalystEvent("volume_spike", polarity, bar.date, figures))
        first = max(0, i - YEAR_BARS)
        if i - first >= WINDOW_BARS:
            top, bottom = prior[i]
            window = {"prior_bars": i - first}
            if bar.close > top:
                found["52w_high"].append(
                    CatalystEvent("52w_high", 1, bar.date, {"close": bar.close, "prior_high": top, **window})
                )
            elif bar.close < bottom:
                found["52w_low"].append(
                    CatalystEvent("52w_low", -1, bar.date, {"close": bar.close, "prior_low": bottom, **window})
                )
    events = [e for kind in found.values() for e in kind[-MAX_PER_KIND:]]
    return sorted(events, key=lambda e: (e.date, e.kind), reverse=True)


def prior_extremes(highs: list[float], lows: list[float], start: int, span: int) -> list[tuple[float, float]]:
    """For every i from ``start`` on: (max of highs, min of lows) over the ``span`` bars before i, i.e.
    ``highs[max(0, i - span):i]``; entries before ``start`` are unused. One pass with monotonic deques
    instead of a max/min over a year of bars for every day scanned."""
    out: list[tuple[float, float]] = [(math.nan, math.nan)] * len(highs)
    top: deque[int] = deque()
    bottom: deque[int] = deque()
    for i in range(max(0, start - span), len(highs)):
        if i >= start and top:
            left = i - span
            while top[0] < left:
                top.popleft()
            while bottom[0] < left:
                bottom.popleft()
            out[i] = (highs[top[0]], lows[bottom[0]])
        while top and highs[top[-1]] <= highs[i]:
            top.pop()
        top.append(i)
        while bottom and lows[bottom[-1]] >= lows[i]:
            bottom.pop()
        bottom.append(i)
    return out


def detect_financial_events(facts: FinancialFacts) -> list[CatalystEvent]:
    """Earnings inflection and dividend change between the last two annual periods."""
    if len(facts.periods) < 2:
        return []
    prev, last = facts.periods[-2], facts.periods[-1]
    events: list[CatalystEvent] = []
    if last.net_profit_yoy_pct is not None and prev.net_profit_yoy_pct is not None:
        now, before = last.net_profit_yoy_pct, prev.net_profit_yoy_pct
        swing = now - before
        up = before < 0 <= now or (swing >= EARNINGS_SWING_PTS and now > 0)
        if up or now < 0 <= before or (swing <= -EARNINGS_SWING_PTS and before > 0):
            figures = {"period_end": last.period_end.isoformat(), "net_profit_yoy_pct": now, "previous_yoy_pct": before}
            figures["swing_pts"] = rnd(swing, 2)
            events.append(CatalystEvent("earnings_inflection", 1 if up else -1, last.period_end, figures))
    if last.dps is not None and prev.dps and prev.dps > 0 and abs(last.dps / prev.dps - 1) * 100 >= DIVIDEND_CHANGE_PCT:
        change = rnd(pct_change(last.dps, prev.dps), 2)
        figures = {"period_end": last.period_end.isoformat(), "dps": last.dps, "previous_dps": prev.dps}
        figures["change_pct"] = change
        events.append(CatalystEvent("dividend_change", 1 if last.dps > prev.dps else -1, last.period_end, figures))
    return events


def news_events(items: list[NewsItem]) -> list[CatalystEvent]:
    return [
        CatalystEvent("news", 0, item.published_at.date(), {"source": item.source, "url": item.url}, title=item.title)
        for item in items
    ]
