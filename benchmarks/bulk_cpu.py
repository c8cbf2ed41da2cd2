"""CPU per research of the research, debate and judge services through their bulk endpoints (issue 48).

Each analysis date: every symbol of the offline snapshot, one bulk call per expert (the five), one for the debates
(built from the results as the coordinator builds them), one for the verdicts; each service's CPU (``/proc``)
divided by the researches made (the symbols with at least one expert result). The services are real uvicorn
processes (rules mode, ``LOG_LEVEL=WARNING``), warmed up on ``WARM_UP``; each measured date is new to them, so its
cross-section is computed in it.
With ``--ref`` a second set of services runs the sources of that git ref, and the dates alternate between the two.
With ``--profile DIR`` py-spy (installed beside this Python, not a dependency of the workspace) samples each research
process over the measured dates into ``DIR/research-<side>.raw`` (collapsed stacks), and the functions with the
most samples of their own are printed.

    uv run --no-sync python -m benchmarks.bulk_cpu
    uv run --no-sync python -m benchmarks.bulk_cpu --ref e492a09 --dates 2023-06-30 2024-06-28 --profile /tmp/spy
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from benchmarks.harness import EXPERTS, loadavg
from benchmarks.paired_refs import ref_sources
from coordinator.infrastructure.adapters.debate_gateway_adapter import debate_request_body
from coordinator.infrastructure.adapters.judge_gateway_adapter import to_judge_input
from service_kit.stack.launcher import PEERS, Stack, running_stack

WARM_UP = "2019-06-28"
"""Researched first on each side and not counted: every bar file is read once, as in a service that has run a while."""
DATES = ("2021-06-30", "2022-06-30", "2023-06-30", "2024-06-28", "2025-06-30", "2025-09-30")
STAGES = ("research", "debate", "judge")
ENV = {"ANALYSIS_ENGINE": "rules", "LOG_LEVEL": "WARNING"}


def _bulk(client: httpx.Client, url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    answer = client.post(url, json=body)
    answer.raise_for_status()
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def one_date(client: httpx.Client, stack: Stack, symbols: list[str], on: str) -> dict[str, Any]:
    """Every symbol researched as of ``on``: the researches made, each service's CPU ms per research, the wall s."""
    research, debate, judge = (stack[name].url for name in STAGES)
    started, cpu = time.perf_counter(), [stack.cpu_seconds()]
    results: dict[str, dict[str, Any]] = {symbol: {} for symbol in symbols}
    for expert in EXPERTS:
        items = _bulk(
            client, f"{research}/api/v1/research/experts/{expert}/bulk", {"symbols": symbols, "analysis_date": on}
        )
        for item in items:
            results[item["symbol"]][expert] = item["result"]
    researched = [symbol for symbol in symbols if any(results[symbol].values())]
    cpu.append(stack.cpu_seconds())
    debates = [debate_request_body(symbol, results[symbol]) for symbol in researched]
    outcomes = _bulk(client, f"{debate}/api/v1/debate/run/bulk", {"items": debates})
    cpu.append(stack.cpu_seconds())
    inputs = [
        to_judge_input(
            item["symbol"],
            item["result"],
            {
                "expert_results": results[item["symbol"]],
                "analysis_date": on,
                "failed_experts": [name for name, result in results[item["symbol"]].items() if result is None],
            },
        ).model_dump(mode="json")
        for item in outcomes
    ]
    verdicts = _bulk(client, f"{judge}/api/v1/judge/verdict/bulk", {"items": inputs})
    cpu.append(stack.cpu_seconds())
    assert all(v["result"] for v in verdicts), [v["problem"] for v in verdicts if v["problem"]][:1]
    n = len(researched)
    return {
        "date": on,
        "researches": n,
        "wall_s": time.perf_counter() - started,
        "cpu_ms": {name: (cpu[i + 1][name] - cpu[i][name]) * 1000 / n for i, name in enumerate(STAGES)},
        "request_bytes": {
            "debate": max(len(json.dumps(d)) for d in debates),
            "judge": max(len(json.dumps(j)) for j in inputs),
        },
    }


@contextmanager
def sampled(pid: int, into: Path) -> Iterator[None]:
    """py-spy samples process ``pid`` (its busy threads) into ``into`` while the block runs."""
    py_spy = Path(sys.executable).with_name("py-spy")
    command = [str(py_spy), "record", "--pid", str(pid), "--format", "raw", "--rate", "250", "--nonblocking"]
    command += ["-o", str(into)]
    recorder = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)  # attached
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=60)


def own_samples(raw: Path, top: int = 10) -> list[str]:
    """The functions with the most samples of their own in a collapsed-stack file, as shares of all samples."""
    own: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        own[stack.rsplit(";", 1)[-1]] += int(count)
    total = sum(own.values()) or 1
    return [f"{total} samples"] + [f"{100 * n / total:5.1f} %  {frame}" for frame, n in own.most_common(top)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", help="also run the sources of this git ref, alternating date by date")
    parser.add_argument("--dates", nargs="+", default=list(DATES), help="analysis dates, each new to the services")
    parser.add_argument("--profile", type=Path, help="sample each research process with py-spy into this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stacks, httpx.Client(timeout=600) as client:
        work = Path(tmp)
        sides = {"after": stacks.enter_context(running_stack(work / "after", common_env=ENV, only=PEERS))}
        if args.ref:
            (work / "src").mkdir()
            env = {**ENV, "PYTHONPATH": ref_sources(args.ref, work / "src")}
            sides["before"] = stacks.enter_context(running_stack(work / "before", common_env=env, only=PEERS))
        universe = client.get(sides["after"]["research"].url + "/api/v1/research/universe").json()
        symbols = [entry["symbol"] for entry in universe["symbols"]]
        for stack in sides.values():
            one_date(client, stack, symbols, WARM_UP)
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
            for side, stack in sides.items():
                process = stack["research"].process
                assert process is not None
                stacks.enter_context(sampled(process.pid, args.profile / f"research-{side}.raw"))
        load = loadavg()
        runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for index, on in enumerate(args.dates):
            for side in sorted(sides, reverse=index % 2 == 1):
                runs[side].append(one_date(client, sides[side], symbols, on))
        stacks.close()  # the samplers stop before the services
        print(f"{len(symbols)} symbols, dates {' '.join(args.dates)}; load {load} -> {loadavg()}")
        for side, dated in runs.items():
            for run in dated:
                cpu = " ".join(f"{name} {ms:.2f}" for name, ms in run["cpu_ms"].items())
                made = f"{run['researches']:4} researches {run['wall_s']:.2f} s"
                print(f"{side:6} {run['date']} {made}; CPU ms/research: {cpu}")
            medians = {name: statistics.median(r["cpu_ms"][name] for r in dated) for name in STAGES}
            total = sum(medians.values())
            line = " ".join(f"{name} {ms:.2f}" for name, ms in medians.items())
            wall = statistics.median(r["wall_s"] for r in dated)
            print(
                f"{side:6} median CPU ms per research: {line}; three services {total:.2f}; wall per date {wall:.2f} s"
            )
            largest = {k: max(r["request_bytes"][k] for r in dated) for k in ("debate", "judge")}
            print(f"{side:6} largest item in bytes: debate {largest['debate']}, judge {largest['judge']}")
            if args.profile:
                print(
                    f"{side:6} research, own samples:", *own_samples(args.profile / f"research-{side}.raw"), sep="\n  "
                )


if __name__ == "__main__":
    main()
