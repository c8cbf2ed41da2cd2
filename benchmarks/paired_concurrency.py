"""The p95 of N concurrent researches over a single research's p50, on the code of a git ref and on today's,
alternating (issue 48).

Two LLM-mode stacks run at once on this machine, each with its own fake LLM answering every call after L ms (4·L
on a research's critical path); the ``before`` stack imports the ref's sources (``paired_refs.ref_sources``), the
``after`` stack the installed workspace. Each round measures singles on both, then a burst of N on both, the
order swapped every round so that both see the same load. The fake LLMs count the model calls they serve at
once (``peak in flight``); the processes' CPU per research in the bursts tells whether the machine's cores bound.

    uv run --no-sync python -m benchmarks.paired_concurrency --ref 94dbc25 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from benchmarks import llm_script
from benchmarks.harness import BenchStack, bench_stack, cpu_seconds, loadavg, median, wait_idle
from benchmarks.load import burst, sequential
from benchmarks.paired_refs import ref_sources

SIDES = ("before", "after")


async def measure(stacks: dict[str, BenchStack], concurrency: int, rounds: int, singles: int) -> dict[str, Any]:
    single_ms: dict[str, list[float]] = {side: [] for side in SIDES}
    burst_p95: dict[str, list[float]] = {side: [] for side in SIDES}
    errors = dict.fromkeys(SIDES, 0)
    peak = dict.fromkeys(SIDES, 0)
    cpu = dict.fromkeys(SIDES, 0.0)
    for side in SIDES:  # warm-up, not counted
        await burst(stacks[side].coordinator, min(10, concurrency))
    for index in range(rounds):
        order = SIDES if index % 2 == 0 else SIDES[::-1]
        for side in order:
            wait_idle()
            outcomes = await sequential(stacks[side].coordinator, singles)
            single_ms[side] += [o.ms for o in outcomes if o.ok]
            errors[side] += sum(not o.ok for o in outcomes)
        for side in order:
            wait_idle()
            stacks[side].reset_calls()
            cpu_before = cpu_seconds(stacks[side].pids)
            summary = (await burst(stacks[side].coordinator, concurrency)).summary()
            cpu[side] += sum(cpu_seconds(stacks[side].pids).values()) - sum(cpu_before.values())
            burst_p95[side].append(summary["p95_ms"])
            errors[side] += summary["errors"]
            peak[side] = max(peak[side], _peak_in_flight(stacks[side].calls()))
    return {
        side: {
            "single_p50_ms": median(single_ms[side]),
            "burst_p95_ms": median(burst_p95[side]),
            "p95_over_single": median(burst_p95[side]) / median(single_ms[side]),
            "errors": errors[side],
            "peak_model_calls_in_flight": peak[side],
            "cpu_ms_per_research": cpu[side] * 1000 / (rounds * concurrency),
        }
        for side in SIDES
    }


def _peak_in_flight(calls: list[dict[str, Any]]) -> int:
    """The most calls the fake LLM served at once, from each call's start and end."""
    events = sorted([(c["started"], 1) for c in calls] + [(c["ended"], -1) for c in calls])
    peak = current = 0
    for _, change in events:
        current += change
        peak = max(peak, current)
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", required=True, help="the commit to compare today's code with")
    parser.add_argument("--concurrency", type=int, default=100, help="researches per burst (default 100)")
    parser.add_argument("--latency-ms", type=int, default=200, help="fake LLM latency L per call (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="bursts on each stack (default 3)")
    parser.add_argument("--singles", type=int, default=5, help="single researches per round (default 5)")
    parser.add_argument(
        "--env", action="append", default=[], metavar="SIDE:NAME=VALUE", help="e.g. before:RESEARCH_CONCURRENCY=100"
    )
    args = parser.parse_args()
    extra: dict[str, dict[str, str]] = {side: {} for side in SIDES}
    for item in args.env:
        side, _, assignment = item.partition(":")
        name, _, value = assignment.partition("=")
        extra[side][name] = value
    script = llm_script.script(args.latency_ms)
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as resources:
        work = Path(tmp)
        (work / "src").mkdir()
        envs = {"before": {"PYTHONPATH": ref_sources(args.ref, work / "src")}, "after": {}}
        stacks = {
            side: resources.enter_context(
                bench_stack(work / side, mode="llm", script=script, service_env={**envs[side], **extra[side]})
            )
            for side in SIDES
        }
        load = loadavg()
        results = asyncio.run(measure(stacks, args.concurrency, args.rounds, args.singles))
    print(
        f"ref {args.ref} (before) vs today (after): fake LLM L={args.latency_ms} ms (critical path "
        f"{4 * args.latency_ms} ms), {args.rounds} bursts of {args.concurrency} and {args.rounds * args.singles} "
        f"singles each, alternating; load {load} -> {loadavg()}"
    )
    for side in SIDES:
        r = results[side]
        settings = " ".join(f"{k}={v}" for k, v in extra[side].items()) or "defaults"
        print(
            f"  {side:<6} ({settings}): single p50 {r['single_p50_ms']:.0f} ms, {args.concurrency}-concurrent p95 "
            f"{r['burst_p95_ms']:.0f} ms, p95/single {r['p95_over_single']:.2f}x, errors {r['errors']}, "
            f"peak model calls in flight {r['peak_model_calls_in_flight']}, "
            f"CPU {r['cpu_ms_per_research']:.0f} ms per research in the bursts (services and fake LLM)"
        )


if __name__ == "__main__":
    main()
