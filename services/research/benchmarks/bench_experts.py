"""In-process latency of each expert with the rules engine on the offline snapshot.

Run: ``uv run python services/research/benchmarks/bench_experts.py [--rounds 200]``

Each round calls every expert once for every snapshot symbol it has data for, through the same
``ExpertDispatcher`` the HTTP route uses (no HTTP, no network). The snapshot is loaded once, before
timing, as the service does at start. Prints p50/p95/max per expert in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from research.container import build_container
from research.settings import Settings
from shared_contracts.errors import DataUnavailableError
from shared_contracts.experts import ExpertType
from verdict_statistics.quantiles import percentile

TARGET_P50_MS = 20.0


async def main(rounds: int) -> None:
    settings = Settings(_env_file=None, analysis_engine="rules")  # type: ignore[call-arg]
    started = time.perf_counter()
    container = build_container(settings)
    load_ms = (time.perf_counter() - started) * 1000
    symbols = await container.provider.available_symbols() or []
    runnable: dict[ExpertType, list[str]] = {}
    for expert in ExpertType:  # warm-up, and find which symbols each expert has data for
        for symbol in symbols:
            try:
                await container.experts.run(expert.value, symbol)
            except DataUnavailableError:
                continue
            runnable.setdefault(expert, []).append(symbol)
    samples: dict[ExpertType, list[float]] = {e: [] for e in runnable}
    for _ in range(rounds):
        for expert, expert_symbols in runnable.items():
            for symbol in expert_symbols:
                t0 = time.perf_counter()
                await container.experts.run(expert.value, symbol)
                samples[expert].append((time.perf_counter() - t0) * 1000)
    print(f"snapshot load (once, at start): {load_ms:.1f} ms; rounds: {rounds}")
    print(f"{'expert':<20} {'symbols':>7} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  target p50 ≤ 20 ms")
    for expert, values in samples.items():
        p50, p95 = statistics.median(values), percentile(values, 0.95)
        verdict = "ok" if p50 <= TARGET_P50_MS else "MISSED"
        print(
            f"{expert.value:<20} {len(runnable[expert]):>7} {len(values):>6} {p50:>8.2f} {p95:>8.2f} "
            f"{max(values):>8.2f}  {verdict}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
