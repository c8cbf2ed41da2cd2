"""``python -m benchmarks [--quick | --smoke] [--out DIR] [--sections ...] [--no-docs]``"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime as dt
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from benchmarks import batch_replicas, batch_throughput, llm_script, report
from benchmarks.config import CONFIGS, DEPLOYED_LOGGING, BenchConfig
from benchmarks.harness import FLOOR_APPS, REPO_ROOT, bench_stack, git_revision, loadavg, machine_info
from benchmarks.job_path import job_path_on_postgres
from benchmarks.profiling import profile_and_fix
from benchmarks.sections import concurrency, critical_path, floor, llm_economy, rules_mode

SECTIONS = ("critical", "concurrency", "floor", "rules", "economy", "profile", "jobpath", "batches", "replicas")
DOCS_PAGE = REPO_ROOT / "docs" / "benchmarks.md"


def log(message: str) -> None:
    print(message, flush=True)


async def run_all(cfg: BenchConfig, sections: tuple[str, ...], work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    llm_sections = [s for s in ("critical", "concurrency", "economy") if s in sections]
    with contextlib.ExitStack() as floor_stacks:
        floor_stack = None
        if "floor" in sections:  # started first: section 1 alternates its one-at-a-time runs with the floor's
            floor_stack = floor_stacks.enter_context(
                bench_stack(
                    work / "floor",
                    mode="llm",
                    script=llm_script.script(0),
                    apps=FLOOR_APPS,
                    service_logging=cfg.service_logging,
                )
            )
        if llm_sections:
            with bench_stack(
                work / "llm", mode="llm", script=llm_script.script(0), service_logging=cfg.service_logging
            ) as stack:
                if "critical" in sections:
                    log(
                        "1. critical-path efficiency (LLM mode)"
                        + (", alternating with the floor" if floor_stack else "")
                    )
                    out["critical_path"] = await critical_path(stack, cfg, log, floor_stack)
                if "concurrency" in sections:
                    log("2. concurrency (LLM mode)")
                    out["concurrency"] = await concurrency(stack, cfg, log)
                if "economy" in sections:
                    log("4. LLM economy")
                    out["economy"] = await llm_economy(stack, cfg, log)
        if floor_stack is not None:
            log("6. the floor: the same processes, clients and fake LLM, none of the work")
            paired = next(
                (
                    p["paired_floor"]
                    for p in out.get("critical_path", {}).get("per_latency", [])
                    if p["latency_ms"] == cfg.concurrency_latency_ms and p.get("paired_floor")
                ),
                None,
            )
            out["floor"] = await floor(floor_stack, cfg, log, paired)
    if "rules" in sections:
        with bench_stack(work / "rules", mode="rules", service_logging=cfg.service_logging) as stack:
            log("3. rules mode")
            out["rules"] = await rules_mode(stack, cfg, log)
    if "profile" in sections:
        log("5. profile and fix (before / after, same run)")
        out["profile"] = await profile_and_fix(work / "profile", cfg, log)
    if "jobpath" in sections:
        log("7. the job path on PostgreSQL (in process, a new database on the local server)")
        out["job_path"] = await job_path_on_postgres(cfg.job_path_rounds, cfg.job_path_burst, log)
    if "batches" in sections:
        with bench_stack(work / "batches", mode="rules", service_logging=cfg.service_logging) as stack:
            log("8. batches (rules mode): a batch of every symbol, evaluated researches/s")
            out["batches"] = await batch_throughput.batches(
                stack, rounds=cfg.batch_rounds, dates=cfg.batch_dates, log=log
            )
    if "replicas" in sections:
        log("9. replicas sharing batches on PostgreSQL (LLM mode, one global model-call limit)")
        out["replicas"] = await asyncio.to_thread(batch_replicas.replicas, cfg.replica_batches, work / "replicas")
    return out


def docs_page(md: str, command: str, out_dir: Path) -> str:
    where = out_dir.relative_to(REPO_ROOT) if out_dir.is_relative_to(REPO_ROOT) else out_dir
    return (
        "# Benchmarks\n\n"
        "The latest full run of `make bench` (issue 8). A benchmark measures and reports; it does not gate CI "
        "(CI runs a smoke configuration of one to two minutes: `tests-e2e/test_bench_smoke.py`). How it is measured: "
        "`benchmarks/README.md`.\n\n"
        f"Produced by `{command}` (results folder `{where}`, not committed: `report.json`, `report.md`, "
        "`report.png`, profiles).\n\n" + md.replace("# Benchmark report", "## Report", 1)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_const", const="quick", dest="config", help="a smaller run (~3 min)")
    size.add_argument("--smoke", action="store_const", const="smoke", dest="config", help="seconds; for CI")
    parser.set_defaults(config="full")
    parser.add_argument("--out", type=Path, help="results folder (default bench-results/<timestamp>)")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument(
        "--no-docs",
        action="store_true",
        help="do not rewrite docs/benchmarks.md (only full runs with quiet service logging write it)",
    )
    parser.add_argument(
        "--service-logging",
        choices=("quiet", "deployed"),
        default="quiet",
        help="quiet: LOG_LEVEL=WARNING, no access log (default); deployed: as the Docker image runs them "
        "(LOG_LEVEL=INFO, an access line per request)",
    )
    args = parser.parse_args(argv)
    cfg = CONFIGS[args.config]
    if args.service_logging == "deployed":
        cfg = dataclasses.replace(cfg, service_logging=DEPLOYED_LOGGING)
    started = dt.datetime.now(dt.UTC)
    out_dir: Path = args.out or REPO_ROOT / "bench-results" / started.strftime("%Y%m%dT%H%M%SZ")
    out_dir.mkdir(parents=True, exist_ok=True)
    command = "python -m benchmarks " + shlex.join(argv if argv is not None else sys.argv[1:])
    data: dict[str, Any] = {
        "meta": {
            "config": cfg.name,
            "date": started.strftime("%Y-%m-%d %H:%M UTC"),
            "git": git_revision(),
            "command": command.strip(),
            "machine": machine_info(),
            "sections": list(args.sections),
            "service_logging": cfg.service_logging.describe(),
        }
    }
    t0 = time.monotonic()
    failed = None
    try:
        data.update(asyncio.run(run_all(cfg, tuple(args.sections), out_dir / "work")))
    except Exception:
        failed = traceback.format_exc()
        data["meta"]["error"] = failed
        log(failed)
    data["meta"]["duration_s"] = time.monotonic() - t0
    data["meta"]["loadavg_at_end"] = loadavg()
    paths = report.write(data, out_dir)
    md = paths["md"].read_text(encoding="utf-8")
    print("\n" + md)
    if (
        cfg.name == "full"
        and cfg.service_logging == CONFIGS["full"].service_logging
        and not args.no_docs
        and failed is None
    ):
        DOCS_PAGE.write_text(docs_page(md, "make bench", out_dir), encoding="utf-8")
        log(f"wrote {DOCS_PAGE.relative_to(REPO_ROOT)}")
    log(f"report: {paths['json']}, {paths['md']}, {paths['png']}")
    return 1 if failed else 0
