"""In-sample monthly IC of each relative factor and of the composite (docs/decisions.md, issue 35).

Runs the research service's own cross-section (``UniverseStanding``) on every calendar month end from the
snapshot's first bars up to, and never past, the in-sample split: analysis dates before 2023-10-31. For each
month and factor: Spearman's rank correlation of the factor's value (the composite: its score) with the
20-trading-day return entered at the next open (``shared_contracts.scoring.forward_return``), over the
symbols with both; the mean over months with at least 10 such symbols, with its t interval.

    uv run --no-sync python scripts/in_sample_factor_ic.py            # the offline snapshot
    SNAPSHOT_DIR=/path uv run --no-sync python scripts/in_sample_factor_ic.py
"""

from __future__ import annotations

import asyncio
import os
from datetime import date
from pathlib import Path

from evaluation.grid import month_ends
from research.application.point_in_time_data import PointInTimeData
from research.application.universe_standing import UniverseStanding
from research.domain.analysis.relative import COMPOSITE
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import DEFAULT_SNAPSHOT_DIR, OfflineSnapshotProvider
from shared_contracts.scoring import DailyBar, forward_return
from verdict_statistics.metrics import mean_ci, spearman_ic

SPLIT = date(2023, 10, 31)
"""Analysis dates on or after it are out of sample: never looked at here."""
FIRST = date(2020, 1, 31)
MIN_NAMES = 10


async def main() -> None:
    provider = OfflineSnapshotProvider(Path(os.environ.get("SNAPSHOT_DIR") or DEFAULT_SNAPSHOT_DIR))
    data = PointInTimeData(provider)
    standing = UniverseStanding(data, None, "snapshot")
    names = [s.name for s in COMPOSITE]
    ics: dict[str, list[float]] = {n: [] for n in [*names, "composite"]}
    dates = [d for d in month_ends(FIRST, SPLIT) if d < SPLIT]
    bars = {}
    for symbol in await provider.available_symbols() or []:
        history = await provider.get_price_history(Symbol.parse(symbol))
        bars[symbol] = [DailyBar(b.date, b.open, b.high, b.low, b.close) for b in history.bars]
    for on in dates:
        assert on < SPLIT
        section = await standing.cross_section(on)
        returns = {}
        for symbol in section.factors:
            found = forward_return(bars[symbol], signal_day=on, symbol=symbol, analysis_day=on)
            if found is not None:
                returns[symbol] = found.value
        for name in [*names, "composite"]:
            pairs = []
            for symbol, value in returns.items():
                if name == "composite":
                    found_standing = await standing.standing(Symbol.parse(symbol), on, "technical")
                    score = found_standing.composite.score if found_standing and found_standing.composite else None
                else:
                    score = section.factors[symbol][name]
                if score is not None:
                    pairs.append((score, value))
            if (
                len(pairs) >= MIN_NAMES
                and (ic := spearman_ic([p[0] for p in pairs], [p[1] for p in pairs])) is not None
            ):
                ics[name].append(ic)
    print(
        f"in-sample month ends: {len(dates)} ({dates[0]} … {dates[-1]}), weights: "
        + ", ".join(f"{s.name} {s.weight:g}" for s in COMPOSITE if s.weight)
    )
    for name, values in ics.items():
        if values:
            est = mean_ci(values)
            low, high = est.low or 0.0, est.high or 0.0
            print(f"{name:18s} months {len(values):3d}  IC {est.value or 0.0:+.4f} [{low:+.4f}, {high:+.4f}]")


if __name__ == "__main__":
    asyncio.run(main())
