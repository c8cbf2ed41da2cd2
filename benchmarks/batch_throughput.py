"""Batches in rules mode on the four-service stack (issue 48): the wall time of one batch of every offline symbol
as of one day (submitted → its terminal event), and evaluated researches per second over an evaluation-like grid
(every symbol × month-ends, one batch per date, two in flight per coordinator, every item's full result read back
as ``make evaluate`` does), with the CPU each process spent per research.

``python -m benchmarks.batch_throughput [--dates N] [--rounds N]`` runs it alone and prints the figures;
``python -m benchmarks --sections batches`` runs it within the report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from datetime import date
from pathlib import Path
from typing import Any

import httpx

from benchmarks.harness import BenchStack, bench_stack, cpu_seconds, loadavg, median, wait_idle
from evaluation.batches import run_batch, run_batches
from evaluation.grid import grid_dates
from evaluation.runner import Job

Log = Any
DAY = date(2025, 6, 30)
EXPERTS = (
    "technical_analyst",
    "financial_auditor",
    "valuation_modeler",
    "macro_intelligence",
    "catalyst_detective",
)
TARGET_RESEARCHES_PER_S = 200.0
TARGET_BATCH_SECONDS = 2.0


async def _symbols(stack: BenchStack) -> list[str]:
    async with httpx.AsyncClient(timeout=60) as http:
        universe = (await http.get(stack.url("research") + "/api/v1/research/universe")).json()
    return [s["symbol"] for s in universe["symbols"]]


async def one_batch(stack: BenchStack, symbols: list[str]) -> dict[str, Any]:
    """One batch of ``symbols`` as of ``DAY``: seconds from the POST to its terminal event, and its records."""
    jobs = [Job("policy", EXPERTS, s, DAY) for s in symbols]
    async with httpx.AsyncClient(timeout=600) as http:
        began = time.perf_counter()
        records = await run_batch(http, stack.coordinator, jobs)
        seconds = time.perf_counter() - began
    return {"seconds": seconds, "ok": sum(r.status == "ok" for r in records), "n": len(records)}


async def grid(stack: BenchStack, symbols: list[str], dates: list[date], in_flight: int = 2) -> dict[str, Any]:
    jobs = [Job("policy", EXPERTS, s, d) for d in dates for s in symbols]
    before = cpu_seconds(stack.pids)
    async with httpx.AsyncClient(timeout=600, limits=httpx.Limits(max_connections=16)) as http:
        outcome = await run_batches(http, [stack.coordinator], jobs, concurrency=in_flight)
    after = cpu_seconds(stack.pids)
    cpu = {name: round((after[name] - before.get(name, 0.0)) * 1000 / len(jobs), 2) for name in after}
    statuses: dict[str, int] = {}
    for record in outcome.records:
        statuses[record.status] = statuses.get(record.status, 0) + 1
    return {
        "researches": len(jobs),
        "dates": len(dates),
        "seconds": outcome.seconds,
        "researches_per_s": len(jobs) / outcome.seconds if outcome.seconds else None,
        "statuses": statuses,
        "cpu_ms_per_research": cpu,
    }


async def batches(
    stack: BenchStack, *, rounds: int, dates: int, in_flight: int = 2, log: Log = print
) -> dict[str, Any]:
    symbols = await _symbols(stack)
    await one_batch(stack, symbols[:10])  # warm-up: every process has its caches of the day
    single = []
    for _ in range(rounds):
        wait_idle()
        single.append(await one_batch(stack, symbols))
    batch_seconds = median([s["seconds"] for s in single])
    log(f"  {len(symbols)}-name batch: {batch_seconds:.2f} s (median of {rounds})")
    days = grid_dates("month-end", date(2020, 1, 1), date(2025, 9, 30))[-dates:]
    wait_idle()
    load_before = loadavg()
    measured = await grid(stack, symbols, days, in_flight)
    measured["loadavg"] = {"before": load_before, "after": loadavg()}
    log(f"  grid {measured['researches']} researches: {measured['researches_per_s']:.1f} researches/s")
    return {
        "symbols": len(symbols),
        "analysis_date": DAY.isoformat(),
        "batch_runs": single,
        "batch_seconds": batch_seconds,
        "grid": measured,
    }


def report_lines(result: dict[str, Any]) -> list[str]:
    grid_ = result["grid"]
    rate = grid_["researches_per_s"]
    cpu = grid_["cpu_ms_per_research"]
    met_rate = "yes" if rate >= TARGET_RESEARCHES_PER_S else "**no**"
    lines = [
        "## Batches (rules mode; issue 48)",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| a {result['symbols']}-name batch ≤ {TARGET_BATCH_SECONDS:g} s | {result['batch_seconds']:.2f} s | "
        f"{'yes' if result['batch_seconds'] <= TARGET_BATCH_SECONDS else '**no**'} |",
        f"| ≥ {TARGET_RESEARCHES_PER_S:g} evaluated researches/s | {rate:.1f}/s ({grid_['researches']} in "
        f"{grid_['seconds']:.1f} s, {grid_['dates']} dates) | {met_rate} |",
        "",
        "CPU per evaluated research (ms, user + system): "
        + ", ".join(f"{name} {value:.2f}" for name, value in sorted(cpu.items()))
        + f"; statuses {grid_['statuses']}.",
        "",
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.batch_throughput", description=__doc__)
    parser.add_argument("--dates", type=int, default=24, help="month-ends of the grid (default 24)")
    parser.add_argument("--rounds", type=int, default=3, help="single batches timed (default 3)")
    parser.add_argument("--in-flight", type=int, default=4, help="batches in flight in the grid (default 4)")
    parser.add_argument("--chunks", type=int, help="BATCH_CONCURRENCY of the coordinator (default: its own)")
    parser.add_argument("--work", type=Path, default=Path("bench-results/batches"))
    args = parser.parse_args()
    coordinator_env = {"BATCH_CONCURRENCY": str(args.chunks)} if args.chunks else {}
    with bench_stack(args.work, mode="rules", coordinator_env=coordinator_env) as stack:
        result = asyncio.run(batches(stack, rounds=args.rounds, dates=args.dates, in_flight=args.in_flight))
    print(json.dumps(result, indent=2))
    print("\n".join(report_lines(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
