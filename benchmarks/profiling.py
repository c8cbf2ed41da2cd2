"""5. Profile the coordinator under load and compare the code before and after the fix, in the same run.

How "before" is obtained, without touching git state: the current coordinator sources are copied to a
temporary folder and the files the fix changed (``FIX_FILES``) are replaced there by their version at
``BASELINE_REF`` (the last commit without the fix; read with ``git show``, read-only). That copy is put
first on ``PYTHONPATH`` of a second coordinator process. Both coordinators run at the same time, against
the same research/debate/judge processes (and the same fake LLM), both under the profiling wrapper
(``benchmarks.profiled_app``), and the requests alternate between them (before, after, after, before, ...),
so both see the same machine load. Each has its own SQLite session store.
"""

from __future__ import annotations

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
    ServiceProcess,
    bench_stack,
    cpu_seconds,
    free_port,
    loadavg,
    median,
    percentile,
    wait_idle,
)
from benchmarks.load import burst, client, closed_loop, one_research
from benchmarks.sections import CRITICAL_HOPS, Log

BASELINE_REF = "9d4ee9118266dd4a1783aaa7aa4b56688dd6aa8a"
"""The last commit before the fix (the fix is described in benchmarks/README.md)."""
FIX_FILES = ("services/coordinator/src/coordinator/infrastructure/orchestration/langgraph_orchestrator.py",)
COORDINATOR_SRC = "services/coordinator/src"
# Functions whose inclusive time per research the report follows before/after.
WATCHED = ("build_research_graph", "ainvoke", "run_in_session", "post_json")


def baseline_tree(workdir: Path) -> dict[str, Any]:
    """The coordinator package as it is now, with ``FIX_FILES`` as they were at ``BASELINE_REF``."""
    root = workdir / "before-src"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(
        REPO_ROOT / COORDINATOR_SRC / "coordinator",
        root / "coordinator",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    differs = []
    for path in FIX_FILES:
        old = subprocess.run(
            ["git", "show", f"{BASELINE_REF}:{path}"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout
        target = root / Path(path).relative_to(COORDINATOR_SRC)
        differs.append(target.read_text(encoding="utf-8") != old)
        target.write_text(old, encoding="utf-8")
    return {"path": str(root), "ref": BASELINE_REF, "files": list(FIX_FILES), "differs_from_current": any(differs)}


def _start_before(stack: BenchStack, tree: Path, workdir: Path) -> ServiceProcess:
    after = stack.stack["coordinator"]
    env = dict(after.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH", "")]))
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{workdir / 'coordinator-before.db'}"
    env["PROFILE_OUT"] = str(workdir / "profile-before")
    proc = ServiceProcess(
        "coordinator-before", PROFILED_COORDINATOR_APP, free_port(), env, workdir / "coordinator-before.log"
    )
    proc.start()
    proc.wait_ready("/readyz")
    return proc


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


def _cpu_ms(pids: dict[str, int], before: dict[str, float], n: int) -> dict[str, float]:
    after = cpu_seconds(pids)
    return {v: round((after[v] - before[v]) * 1000 / max(n, 1), 2) for v in pids}


async def _llm_mode(
    stack: BenchStack, variants: dict[str, str], pids: dict[str, int], cfg: BenchConfig, log: Log
) -> dict[str, Any]:
    latency = cfg.concurrency_latency_ms
    stack.set_script(llm_script.script(latency))
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
            "cpu_ms_per_research": cpu[name],
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


async def _rules_mode(variants: dict[str, str], pids: dict[str, int], cfg: BenchConfig, log: Log) -> dict[str, Any]:
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
            "cpu_ms_per_research": cpu[name],
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
    tree = baseline_tree(workdir)
    result: dict[str, Any] = {"baseline": tree, "method": __doc__}
    for mode in cfg.profile_modes:
        mode_dir = workdir / f"profile-{mode}"
        script = llm_script.script(cfg.concurrency_latency_ms) if mode == "llm" else None
        with bench_stack(
            mode_dir,
            mode=mode,
            script=script,
            coordinator_app=PROFILED_COORDINATOR_APP,
            coordinator_env={"PROFILE_OUT": str(mode_dir / "profile-after")},
        ) as stack:
            before = _start_before(stack, Path(tree["path"]), mode_dir)
            try:
                variants = {"before": before.url, "after": stack.coordinator}
                assert before.process is not None
                pids = {"before": before.process.pid, "after": stack.pids["coordinator"]}
                if mode == "llm":
                    result[mode] = await _llm_mode(stack, variants, pids, cfg, log)
                else:
                    result[mode] = await _rules_mode(variants, pids, cfg, log)
            finally:
                before.stop()
        result[mode]["profile_files"] = {
            v: [str(mode_dir / f"profile-{v}.txt"), str(mode_dir / f"profile-{v}.html")] for v in ("before", "after")
        }
    return result
