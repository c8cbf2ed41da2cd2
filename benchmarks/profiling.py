"""5. Profile under load and compare the code before and after the fixes, in the same run.

How "before" is obtained, without touching git state: the sources of the four services and of
shared-contracts at ``BASELINE_REF`` (the last commit before the fixes) are extracted with ``git archive``
(read-only) into a temporary folder, which is put first on the ``PYTHONPATH`` of a second, complete stack
(research, debate, judge, coordinator and its own fake LLM). Both stacks run at the same time, both
coordinators under the profiling wrapper (``benchmarks.profiled_app``), and the requests alternate between
them (before, after, after, before, ...), so both see the same machine load. The fixes added dependencies
but removed none, so the baseline code runs on the same virtual environment.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx

from benchmarks import llm_script
from benchmarks.config import BenchConfig
from benchmarks.harness import (
    PROFILED_COORDINATOR_APP,
    REPO_ROOT,
    BenchStack,
    bench_stack,
    cpu_seconds,
    loadavg,
    median,
    percentile,
    wait_idle,
)
from benchmarks.load import burst, client, closed_loop, one_research
from benchmarks.sections import CRITICAL_HOPS, Log

BASELINE_REF = "bc447ced48640776c7f21d2bad99b88f499cc59d"
"""The last commit before the fixes (described in benchmarks/README.md)."""
SOURCE_ROOTS = (
    "shared-contracts/src",
    "services/research/src",
    "services/debate/src",
    "services/judge/src",
    "services/coordinator/src",
)
# Functions whose inclusive time per research (in the coordinator) the report follows before/after.
WATCHED = ("run_in_session", "record_expert", "post_json", "ainvoke")


def baseline_missing() -> str | None:
    """Why the baseline cannot be built here (a shallow clone lacks ``BASELINE_REF``), or None."""
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{BASELINE_REF}^{{commit}}"], cwd=REPO_ROOT, capture_output=True, check=False
    )
    return None if found.returncode == 0 else f"commit {BASELINE_REF[:10]} is not in this clone (shallow?)"


def baseline_tree(workdir: Path) -> dict[str, Any]:
    """The sources of every service and of shared-contracts at ``BASELINE_REF``, and the PYTHONPATH that
    puts them first."""
    root = workdir / "before-src"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", BASELINE_REF, *SOURCE_ROOTS], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    # tar(1), not tarfile: extractall's ``filter`` argument is missing from older 3.11 patch releases
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    # Both stacks run under today's server options (UVICORN_OPTIONS): the baseline stack imports the protocol
    # module from today's service_kit, which is installed in the venv and not in the baseline's tree, so the
    # server is the same on both sides of the comparison.
    changed = subprocess.run(
        ["git", "diff", "--stat", BASELINE_REF, "--", *SOURCE_ROOTS],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return {
        "path": str(root),
        "ref": BASELINE_REF,
        "pythonpath": os.pathsep.join(str(root / r) for r in SOURCE_ROOTS),
        "changed_since": changed.splitlines()[-1].strip() if changed else "no change",
    }


def _profile_summary(answer: dict[str, Any], researches: int) -> dict[str, Any]:
    functions = answer.get("functions") or []
    per = max(researches, 1)
    watched = {}
    for name in WATCHED:
        hits = [f for f in functions if f["function"] == name]
        watched[name] = round(sum(f["seconds"] for f in hits) * 1000 / per, 2) if hits else 0.0
    ours = [
        {"function": f["function"], "file": f["file"], "ms_per_research": round(f["seconds"] * 1000 / per, 2)}
        for f in functions
        if f["ours"]
    ][:12]
    return {
        "researches": researches,
        "duration_s": answer.get("duration_s"),
        "cpu_ms_per_research": round((answer.get("cpu_time_s") or 0.0) * 1000 / per, 2),
        "samples": answer.get("samples"),
        "watched_ms_per_research": watched,
        "top_own_functions": ours,
    }


async def _profiled(url: str, run: Any) -> tuple[dict[str, Any], int, list[float]]:
    async with httpx.AsyncClient(timeout=120) as control:
        (await control.post(url + "/_bench/profile/start")).raise_for_status()
        researches, latencies = await run(url)
        answer: dict[str, Any] = (await control.post(url + "/_bench/profile/stop")).json()
    return answer, researches, latencies


STACK_SERVICES = ("research", "debate", "judge", "coordinator")


def _pids(stacks: dict[str, BenchStack]) -> dict[str, int]:
    """``<variant>.<service>`` → pid, the four services of each stack (not their fake LLMs)."""
    return {f"{v}.{name}": stack.pids[name] for v, stack in stacks.items() for name in STACK_SERVICES}


def _cpu_ms(pids: dict[str, int], before: dict[str, float], n: int) -> dict[str, dict[str, float]]:
    """Per variant: the coordinator's CPU ms per research and the four services' together."""
    after = cpu_seconds(pids)
    per = {k: (after[k] - before[k]) * 1000 / max(n, 1) for k in pids}
    variants = {k.split(".")[0] for k in pids}
    return {
        v: {
            "coordinator": round(per[f"{v}.coordinator"], 2),
            "stack": round(sum(per[f"{v}.{name}"] for name in STACK_SERVICES), 2),
        }
        for v in variants
    }


async def _llm_mode(stacks: dict[str, BenchStack], cfg: BenchConfig, log: Log) -> dict[str, Any]:
    latency = cfg.concurrency_latency_ms
    variants = {v: stack.coordinator for v, stack in stacks.items()}
    pids = _pids(stacks)
    critical = CRITICAL_HOPS * latency
    walls: dict[str, list[float]] = {v: [] for v in variants}
    errors = dict.fromkeys(variants, 0)
    async with client(1) as http:
        for url in variants.values():  # warm-up
            await one_research(http, url)
        cpu_before = cpu_seconds(pids)
        for i in range(cfg.compare_llm_pairs):
            order = list(variants) if i % 2 == 0 else list(reversed(variants))
            for name in order:
                outcome = await one_research(http, variants[name])
                walls[name].append(outcome.ms)
                errors[name] += not outcome.ok
    cpu = _cpu_ms(pids, cpu_before, cfg.compare_llm_pairs)
    out: dict[str, Any] = {"latency_ms": latency, "critical_path_ms": critical, "variants": {}}
    for name, url in variants.items():

        async def run(u: str) -> tuple[int, list[float]]:
            lat: list[float] = []
            n = 0
            for _ in range(cfg.profile_llm_bursts):
                b = await burst(u, cfg.profile_llm_concurrency)
                n += len(b.outcomes)
                lat += b.latencies
            return n, lat

        wait_idle()
        answer, n, lat = await _profiled(url, run)
        out["variants"][name] = {
            "single_wall_p50_ms": median(walls[name]),
            "single_overhead_p50_ms": median(walls[name]) - critical,
            "single_overhead_p50_pct": (median(walls[name]) - critical) / critical * 100,
            "single_errors": errors[name],
            "cpu_ms_per_research": cpu[name]["coordinator"],
            "stack_cpu_ms_per_research": cpu[name]["stack"],
            "single_samples": walls[name],
            "under_load": {
                "concurrency": cfg.profile_llm_concurrency,
                "p50_ms": percentile(lat, 0.5),
                "p95_ms": percentile(lat, 0.95),
            },
            "profile": _profile_summary(answer, n),
        }
        log(
            f"  LLM {name}: single overhead p50 {out['variants'][name]['single_overhead_p50_ms']:.1f} ms; "
            f"profiled {n} researches at {cfg.profile_llm_concurrency} concurrent"
        )
    out["loadavg_after"] = loadavg()
    return out


async def _rules_mode(stacks: dict[str, BenchStack], cfg: BenchConfig, log: Log) -> dict[str, Any]:
    variants = {v: stack.coordinator for v, stack in stacks.items()}
    pids = _pids(stacks)
    walls: dict[str, list[float]] = {v: [] for v in variants}
    async with client(1) as http:
        for url in variants.values():
            for _ in range(3):  # warm-up
                await one_research(http, url)
        cpu_before = cpu_seconds(pids)
        for i in range(cfg.compare_rules_pairs):
            order = list(variants) if i % 2 == 0 else list(reversed(variants))
            for name in order:
                walls[name].append((await one_research(http, variants[name])).ms)
    cpu = _cpu_ms(pids, cpu_before, cfg.compare_rules_pairs)
    rps: dict[str, list[float]] = {v: [] for v in variants}
    for i in range(cfg.compare_throughput_rounds):
        order = list(variants) if i % 2 == 0 else list(reversed(variants))
        for name in order:
            wait_idle()
            b = await closed_loop(variants[name], cfg.compare_throughput_workers, cfg.compare_throughput_seconds)
            rps[name].append(b.throughput)
    out: dict[str, Any] = {"variants": {}}
    for name, url in variants.items():

        async def run(u: str) -> tuple[int, list[float]]:
            b = await closed_loop(u, cfg.profile_rules_workers, cfg.profile_rules_seconds)
            return len(b.outcomes), b.latencies

        wait_idle()
        answer, n, _ = await _profiled(url, run)
        out["variants"][name] = {
            "single_p50_ms": median(walls[name]),
            "single_p95_ms": percentile(walls[name], 0.95),
            "cpu_ms_per_research": cpu[name]["coordinator"],
            "stack_cpu_ms_per_research": cpu[name]["stack"],
            "throughput_rps": median(rps[name]),
            "throughput_workers": cfg.compare_throughput_workers,
            "profile": _profile_summary(answer, n),
        }
        log(
            f"  rules {name}: single p50 {out['variants'][name]['single_p50_ms']:.1f} ms, "
            f"{out['variants'][name]['throughput_rps']:.1f} researches/s"
        )
    out["loadavg_after"] = loadavg()
    return out


async def profile_and_fix(workdir: Path, cfg: BenchConfig, log: Log) -> dict[str, Any]:
    missing = baseline_missing()
    if missing is not None:
        log(f"  skipped: {missing}")
        return {"baseline": {"ref": BASELINE_REF, "unavailable": missing}, "method": __doc__}
    tree = baseline_tree(workdir)
    result: dict[str, Any] = {"baseline": tree, "method": __doc__}
    for mode in cfg.profile_modes:
        mode_dir = workdir / f"profile-{mode}"
        script = llm_script.script(cfg.concurrency_latency_ms) if mode == "llm" else None
        with contextlib.ExitStack() as started:
            stacks = {
                variant: started.enter_context(
                    bench_stack(
                        mode_dir / variant,
                        mode=mode,
                        script=script,
                        apps={"coordinator": PROFILED_COORDINATOR_APP},
                        coordinator_env={"PROFILE_OUT": str(mode_dir / f"profile-{variant}")},
                        service_env={"PYTHONPATH": tree["pythonpath"]} if variant == "before" else None,
                        service_logging=cfg.service_logging,
                    )
                )
                for variant in ("before", "after")
            }
            if mode == "llm":
                result[mode] = await _llm_mode(stacks, cfg, log)
            else:
                result[mode] = await _rules_mode(stacks, cfg, log)
        result[mode]["profile_files"] = {
            v: [str(mode_dir / f"profile-{v}.txt"), str(mode_dir / f"profile-{v}.html")] for v in ("before", "after")
        }
    return result
