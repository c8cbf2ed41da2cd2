"""A research on the code of a git ref against the same research on today's code, alternating request by request.

Both stacks (rules mode, offline snapshot, SQLite) run at once on this machine; the ``before`` stack imports the
sources of ``--ref`` (``git archive`` into a temporary folder, first on its ``PYTHONPATH``), the ``after`` stack the
installed workspace. The requests alternate (before, after, after, before, ...) so both see the same load.

    uv run --no-sync python -m benchmarks.paired_refs --ref f8afd6a --rounds 40
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from benchmarks.harness import REPO_ROOT, loadavg, percentile
from service_kit.stack.api_paths import RESEARCH
from service_kit.stack.launcher import Stack, running_stack

SHARED_ROOTS = ("shared-contracts/src", "service-kit/src", "verdict-statistics/src")
SERVICE_ROOTS = tuple(f"services/{s}/src" for s in ("coordinator", "research", "debate", "judge"))
EXPERTS = ["technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective"]
BODY = {"symbol": "600519.SH", "experts": EXPERTS, "analysis_date": "2025-06-30"}


def ref_sources(ref: str, into: Path) -> str:
    """The ref's source folders (the shared packages it has, the four services) extracted into ``into``; the
    PYTHONPATH that puts them first."""
    present = subprocess.run(
        ["git", "ls-tree", "--name-only", ref, "--", *(root.split("/")[0] for root in SHARED_ROOTS)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    roots = [root for root in SHARED_ROOTS if root.split("/")[0] in present] + list(SERVICE_ROOTS)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref, *roots], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return os.pathsep.join(str(into / root) for root in roots)


def one_research(client: httpx.Client, stack: Stack) -> float:
    started = time.perf_counter()
    answer = client.post(stack["coordinator"].url + RESEARCH, json=BODY)
    answer.raise_for_status()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", required=True, help="the commit to compare today's code with")
    parser.add_argument("--rounds", type=int, default=40, help="researches on each stack (default 40)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stacks, httpx.Client(timeout=60) as client:
        work = Path(tmp)
        (work / "src").mkdir()
        before_path = ref_sources(args.ref, work / "src")
        before = stacks.enter_context(running_stack(work / "before", common_env={"PYTHONPATH": before_path}))
        after = stacks.enter_context(running_stack(work / "after"))
        times: dict[str, list[float]] = {"before": [], "after": []}
        for side in ("before", "after"):  # one warm-up research each, not counted
            one_research(client, before if side == "before" else after)
        cpu_start = {"before": before.cpu_seconds(), "after": after.cpu_seconds()}
        load = loadavg()
        for index in range(args.rounds):
            order = ("before", "after") if index % 2 == 0 else ("after", "before")
            for side in order:
                times[side].append(one_research(client, before if side == "before" else after))
        print(f"ref {args.ref} vs today, {args.rounds} researches each, alternating; load {load} -> {loadavg()}")
        for side, stack in (("before", before), ("after", after)):
            spent = {
                name: (cpu - cpu_start[side][name]) * 1000 / args.rounds for name, cpu in stack.cpu_seconds().items()
            }
            samples = times[side]
            print(
                f"{side:6}  p50 {percentile(samples, 0.5):7.1f} ms  p95 {percentile(samples, 0.95):7.1f} ms  "
                f"CPU per research {sum(spent.values()):6.1f} ms ("
                + ", ".join(f"{name} {ms:.1f}" for name, ms in sorted(spent.items()))
                + ")"
            )


if __name__ == "__main__":
    main()
