"""One walk-forward evaluation against a stack: the universe and the bars from the research service, the grid
of dates, every research through the coordinators, with the time and CPU each part took.

Example::

    evaluation = asyncio.run(evaluate(settings, ["http://127.0.0.1:8000"], "http://127.0.0.1:8001", gate=None))
    evaluation.records  # one ResearchRecord per (configuration, symbol, grid date), skipped ones included
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

import httpx

from evaluation.batches import run_batches
from evaluation.grid import default_split, grid_dates
from evaluation.options import LLM_CONCURRENCY, Settings
from evaluation.records import ResearchRecord
from evaluation.runner import (
    BudgetGate,
    Progress,
    RunOutcome,
    fetch_all_bars,
    fetch_universe,
    plan_jobs,
    record_key,
    run_jobs,
)
from shared_contracts.scoring import DailyBar

BATCHES_PER_COORDINATOR = 2
"""Batches (one per configuration and date) in flight per coordinator: its chunks of two keep it busy."""
REQUEST_TIMEOUT_S = 600.0
"""One research's answer: the coordinator's own budgets (experts 120 s, debate 180 s, judge 90 s) fit in it."""


@dataclass
class Evaluation:
    """What a run produced, and how long each part took."""

    records: list[ResearchRecord]
    bars: dict[str, list[DailyBar]]
    symbols: tuple[str, ...]
    dates: list[date]
    start: date
    end: date
    split_date: date
    outcome: RunOutcome
    skipped: int
    phases: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    """CPU time each process used during the researches (the client is this process)."""


class UsageError(Exception):
    """A setting the stack's data cannot satisfy (no symbols, an empty grid)."""


def _cpu_now(services: Callable[[], dict[str, float]] | None) -> dict[str, float]:
    return {**(services() if services is not None else {}), "client": time.process_time()}


@dataclass(frozen=True)
class _Grid:
    start: date
    end: date
    dates: list[date]
    split: date


async def _symbols(client: httpx.AsyncClient, settings: Settings, research_url: str) -> tuple[str, ...]:
    """The symbols asked for, else the research service's universe."""
    symbols = settings.symbols
    if symbols is None:
        universe = await fetch_universe(client, research_url)
        if universe.open_ended:
            raise UsageError(
                f"the research service's data provider ({universe.data_provider}) has no list of "
                "symbols: pass --symbols"
            )
        symbols = tuple(sorted(item.symbol for item in universe.symbols))
    if not symbols:
        raise UsageError("no symbols to evaluate")
    return symbols


def _grid(settings: Settings, bars: dict[str, list[DailyBar]]) -> _Grid:
    """The grid dates between the given bounds, else between the symbols' first and last bars, and the split."""
    known = [series for series in bars.values() if series]
    if (settings.start is None or settings.end is None) and not known:
        raise UsageError("none of the symbols has bars: pass --start and --end")
    start = settings.start or min(series[0].day for series in known)
    end = settings.end or max(series[-1].day for series in known)
    dates = grid_dates(settings.grid, start, end)
    if not dates:
        raise UsageError(f"no {settings.grid} date between {start} and {end}")
    return _Grid(start, end, dates, settings.split_date or default_split(dates, start, end))


async def evaluate(
    settings: Settings,
    coordinator_urls: Sequence[str],
    research_url: str,
    gate: BudgetGate | None,
    service_cpu: Callable[[], dict[str, float]] | None = None,
) -> Evaluation:
    """Universe, bars, grid, the researches (their CPU per process measured when ``service_cpu`` can)."""
    phases: dict[str, float] = {}
    concurrency = settings.concurrency or LLM_CONCURRENCY
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=10.0)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
        began = time.monotonic()
        symbols = await _symbols(client, settings, research_url)
        bars = await fetch_all_bars(client, research_url, symbols, concurrency)
        phases["bars_seconds"] = time.monotonic() - began
        grid = _grid(settings, bars)
        dates = grid.dates
        first_bar = {symbol: series[0].day for symbol, series in bars.items() if series}
        jobs, skipped = plan_jobs(settings.configurations, symbols, dates, first_bar)
        print(
            f"research-eval: {len(symbols)} symbols × {len(dates)} {settings.grid} dates ({dates[0]} → {dates[-1]}) × "
            f"{len(settings.configurations)} configurations: {len(jobs)} researches ({len(skipped)} grid dates before "
            f"a symbol's first bar skipped), concurrency {concurrency} over {len(coordinator_urls)} coordinator(s)",
            file=sys.stderr,
        )
        progress = Progress(len(jobs))
        cpu_before = _cpu_now(service_cpu)
        try:
            if gate is None:  # batches; an LLM budget is kept research by research
                in_flight = BATCHES_PER_COORDINATOR * len(coordinator_urls)
                outcome = await run_batches(client, coordinator_urls, jobs, concurrency=in_flight, progress=progress)
            else:
                outcome = await run_jobs(
                    client, coordinator_urls, jobs, concurrency=concurrency, gate=gate, progress=progress
                )
        finally:
            progress.close()
        phases["researches_seconds"] = outcome.seconds
        cpu_after = _cpu_now(service_cpu)
        cpu = {name: cpu_after[name] - cpu_before[name] for name in cpu_after if name in cpu_before}
    records = sorted([*outcome.records, *skipped], key=record_key)
    return Evaluation(
        records, bars, symbols, dates, grid.start, grid.end, grid.split, outcome, len(skipped), phases, cpu
    )
