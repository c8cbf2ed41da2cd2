"""One symbol's daily bars with the lookups the report needs (by bisection, so a long run stays fast).

The slices it hands to ``score_trade`` and ``forward_return`` start at the last bar on or before the day asked
for (the signal close, whose day the next open's limit is judged against), so those functions see exactly the
bars they would find in the whole series.
"""

from __future__ import annotations

import bisect
import csv
import itertools
import statistics
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

from shared_contracts.scoring import DailyBar


class BarSeries:
    """A symbol's bars, oldest first (sorted on construction)."""

    def __init__(self, bars: Sequence[DailyBar], symbol: str = "") -> None:
        self.symbol = symbol
        """Whose bars (it decides the daily price limits); empty: no limits."""
        self.bars = sorted(bars, key=lambda bar: bar.day)
        self.days = [bar.day for bar in self.bars]

    def last_index(self, day: date) -> int:
        """The index of the last bar on or before ``day``; -1 when there is none."""
        return bisect.bisect_right(self.days, day) - 1

    def has_bar_by(self, day: date) -> bool:
        return self.last_index(day) >= 0

    def close_on(self, day: date) -> float | None:
        """The last close on or before ``day``."""
        index = self.last_index(day)
        return self.bars[index].close if index >= 0 else None

    def from_entry(self, day: date, holding_days: int) -> Sequence[DailyBar]:
        """The entry bar (last on or before ``day``) and up to ``holding_days`` bars after it."""
        index = self.last_index(day)
        return self.bars[index : index + 1 + holding_days] if index >= 0 else []

    def next_index(self, day: date) -> int | None:
        """The index of the first bar after ``day`` (where an order placed on ``day``'s close is filled, at its
        open); None when there is none yet."""
        index = bisect.bisect_right(self.days, day)
        return index if index < len(self.bars) else None

    def daily_volatility(self, day: date, window: int) -> float | None:
        """The standard deviation of the last ``window`` close-to-close returns up to ``day``'s close; None with
        fewer than ``window`` returns."""
        closes = self.closes_up_to(day, window + 1)
        if len(closes) < window + 1:
            return None
        returns = [b / a - 1.0 for a, b in itertools.pairwise(closes) if a > 0]
        return statistics.stdev(returns) if len(returns) >= 2 else None

    def between(self, start: date, end: date) -> Sequence[DailyBar]:
        """The bars from the last one on or before ``start`` to the last one on or before ``end``."""
        return self.bars[max(self.last_index(start), 0) : self.last_index(end) + 1]

    def closes_up_to(self, day: date, count: int) -> list[float]:
        """The last ``count`` closes on or before ``day`` (fewer when the series is shorter)."""
        end = self.last_index(day) + 1
        return [bar.close for bar in self.bars[max(end - count, 0) : end]]


def index_bars(bars: Mapping[str, Sequence[DailyBar]], symbols: Sequence[str]) -> dict[str, BarSeries]:
    """A ``BarSeries`` per symbol of the run (empty for a symbol without bars)."""
    return {symbol: BarSeries(bars.get(symbol, ()), symbol) for symbol in symbols}


def read_bars_csv(folder: Path, symbol: str) -> list[DailyBar]:
    """A symbol's bars from the offline snapshot's ``bars/<symbol>.csv`` (date, open, high, low, close, volume,
    …; a blank or missing volume is None)."""
    with (folder / f"{symbol}.csv").open(encoding="utf-8", newline="") as handle:
        return [
            DailyBar(
                date.fromisoformat(r["date"]),
                float(r["open"]),
                float(r["high"]),
                float(r["low"]),
                float(r["close"]),
                float(r["volume"]) if (r.get("volume") or "").strip() else None,
            )
            for r in csv.DictReader(handle)
        ]
