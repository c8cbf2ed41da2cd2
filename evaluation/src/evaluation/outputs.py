"""What a run leaves in its folder besides the logs: records.jsonl (every research, the report's input),
report.json/report.md and the charts (``evaluation.report``), and the summary run.json records (what ran, how
long, on what machine and commit), with the one-line account printed at the end.

Example::

    write_records(evaluation.records, out / "records.jsonl")
    summary = run_summary(evaluation, settings, started_at=..., wall=..., phases=..., stack=..., llm=..., files=...)
    print(summary_line(summary))
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from evaluation.llm_proxy import LLMProxy, LLMStats
from evaluation.options import Settings
from evaluation.records import ResearchRecord
from evaluation.walk_forward import Evaluation


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _git(*args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit() -> str:
    """The checked-out commit, ``+dirty`` when tracked files differ from it (untracked files do not count)."""
    head = _git("rev-parse", "--short=12", "HEAD")
    if head is None or head.returncode != 0:
        return ""
    diff = _git("diff", "--quiet", "HEAD", "--")
    return head.stdout.strip() + ("+dirty" if diff is not None and diff.returncode == 1 else "")


def machine() -> str:
    """The OS, architecture, CPU count and Python version."""
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def engine_of(records: Sequence[ResearchRecord], llm: bool, config: dict[str, str]) -> str:
    """The engines the verdicts came from (``rules``, the LLM model), else the configured one."""
    seen = sorted({r.engine for r in records if r.status == "ok" and r.engine})
    if seen:
        return ", ".join(seen)
    return config.get("LLM_MODEL", "llm") if llm else "rules"


def write_outputs(evaluation: Evaluation, settings: Settings, *, llm: bool, engine: str) -> list[Path]:
    """report.json, report.md and the charts, by ``evaluation.report`` (imported when needed)."""
    from evaluation.report import ReportOptions, build_report, write_report  # the report's modules, when needed

    options = ReportOptions(
        start=evaluation.start,
        end=evaluation.end,
        split_date=evaluation.split_date,
        grid=settings.grid,
        experts=settings.experts,
        engine=engine,
        allow_short=settings.allow_short,
        command=settings.command,
        commit=git_commit(),
        machine=machine(),
        llm=llm,
        cost=settings.cost,
        weighting=settings.weighting,
        exposure=settings.exposure,
        budget=settings.exposure_budget,
    )
    return write_report(build_report(evaluation.records, evaluation.bars, options), settings.out)


def write_records(records: Sequence[ResearchRecord], path: Path) -> Path:
    """Every record, one JSON object a line (the report's input: a report can be rebuilt from it)."""
    lines = []
    for record in records:
        fields = dataclasses.asdict(record)
        fields["analysis_date"] = record.analysis_date.isoformat()
        fields["as_of"] = record.as_of.isoformat() if record.as_of else None
        fields["failed_experts"] = list(record.failed_experts)
        lines.append(json.dumps(fields, ensure_ascii=False, sort_keys=True))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def llm_summary(proxy: LLMProxy | None, settings: Settings, upstream: str, model: str | None) -> dict[str, Any]:
    """run.json's ``llm``: the proxy's counts (endpoint without credentials), or ``{"mode": false}``."""
    if proxy is None:
        return {"mode": False}
    stats: LLMStats = proxy.stats
    return {
        "mode": True,
        "endpoint": _without_credentials(upstream),
        "model": model,
        "cache_dir": str(proxy.cache_dir),
        "upstream_calls": stats.upstream_calls,
        "upstream_tokens": stats.upstream_tokens,
        "upstream_errors": stats.upstream_errors,
        "cache_hits": stats.cache_hits,
        "cache_hit_tokens": stats.cache_hit_tokens,
        "refused_over_budget": stats.refused_over_budget,
        "max_calls": settings.budget.max_calls,
        "max_tokens": settings.budget.max_tokens,
    }


def run_summary(
    evaluation: Evaluation,
    settings: Settings,
    *,
    started_at: datetime,
    wall: float,
    phases: dict[str, float],
    stack: dict[str, Any],
    llm: dict[str, Any],
    files: Sequence[Path],
) -> dict[str, Any]:
    """run.json: the command, times, throughput, CPU per research, the grid, the researches by status and
    configuration, the budget stop, the LLM use, the stack, the machine and the commit, the files written."""
    outcome = evaluation.outcome
    by_status = Counter(r.status for r in outcome.records)
    by_configuration = {
        configuration: dict(
            sorted(Counter(r.status for r in outcome.records if r.configuration == configuration).items())
        )
        for configuration in settings.configurations
    }
    failures = Counter(r.reason.split(":")[0] for r in outcome.records if r.status == "failed")
    seconds = phases.get("researches_seconds", 0.0)
    return {
        "command": settings.full_command,
        "out": str(settings.out),
        "started_at": started_at.isoformat(timespec="seconds"),
        "wall_seconds": round(wall, 3),
        "phases_seconds": {name: round(value, 3) for name, value in phases.items()},
        "throughput_per_second": round(outcome.sent / seconds, 2) if seconds > 0 else None,
        "concurrency": settings.concurrency,
        "coordinators": settings.coordinators if settings.coordinator_urls is None else len(settings.coordinator_urls),
        "cpu_ms_per_research": {
            name: round(1000 * seconds / outcome.sent, 2) for name, seconds in evaluation.cpu_seconds.items()
        }
        if outcome.sent
        else {},
        "symbols": len(evaluation.symbols),
        "grid": settings.grid,
        "grid_dates": len(evaluation.dates),
        "start": evaluation.start.isoformat(),
        "end": evaluation.end.isoformat(),
        "split_date": evaluation.split_date.isoformat(),
        "configurations": {name: list(experts) for name, experts in settings.configurations.items()},
        "researches": {
            "sent": outcome.sent,
            "by_status": dict(sorted(by_status.items())),
            "by_configuration": by_configuration,
            "skipped_before_first_bar": evaluation.skipped,
            "not_run_llm_budget": outcome.not_run,
            "failure_reasons": dict(failures.most_common(10)),
        },
        "budget_stop": outcome.budget_stop,
        "llm": llm,
        "stack": stack,
        "machine": machine(),
        "load_average_at_end": [round(value, 2) for value in os.getloadavg()],
        "commit": git_commit(),
        "files": [str(path) for path in files],
    }


def summary_line(summary: dict[str, Any]) -> str:
    """The account printed at the end: researches and their statuses, time, budget stop, LLM use, failures."""
    researches = summary["researches"]
    statuses = ", ".join(f"{name} {count}" for name, count in researches["by_status"].items()) or "none"
    seconds = summary["phases_seconds"].get("researches_seconds", 0.0)
    rate = summary["throughput_per_second"]
    line = (
        f"research-eval: {researches['sent']} researches in {seconds:.1f} s ({rate if rate is not None else '–'}/s; "
        f"{statuses}); wall time {summary['wall_seconds']:.1f} s"
    )
    if summary["budget_stop"]:
        line += f"\nresearch-eval: stopped early, {researches['not_run_llm_budget']} not run: {summary['budget_stop']}"
    llm = summary["llm"]
    if llm.get("mode"):
        line += (
            f"\nresearch-eval: LLM {llm['upstream_calls']} calls / {llm['upstream_tokens']} tokens to the endpoint, "
            f"{llm['cache_hits']} answered from the cache ({llm['cache_dir']})"
        )
    if researches["failure_reasons"]:
        line += "\nresearch-eval: failures by reason: " + ", ".join(
            f"{reason} ×{count}" for reason, count in researches["failure_reasons"].items()
        )
    return line
