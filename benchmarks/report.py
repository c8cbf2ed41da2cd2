"""The report: ``report.json`` (everything measured), ``report.md`` (the tables: ``report_sections`` and
``report_comparisons``) and ``report.png`` (the chart: ``report_chart``).

Example::

    paths = write(report, Path("bench-results/20260101T000000Z"))  # {"json": …, "md": …, "png": …}
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from benchmarks import batch_replicas, batch_throughput, report_comparisons, report_sections
from benchmarks.report_chart import chart
from benchmarks.report_text import at_hundred, fmt, ratio_text

TARGETS = {
    "overhead_p50_ms": 30.0,
    "overhead_p50_pct": 5.0,
    "job_overhead_p50_ms": 5.0,
    "first_event_p95_ms": 100.0,
    "p95_over_single": 1.5,
    "rules_p50_ms": 100.0,
    "llm_calls_full": 9,
}


def _overhead_targets(report: dict[str, Any], floor: dict[str, Any]) -> list[tuple[str, str, bool | None, str]]:
    """The two overhead targets at L = 200 ms (none when section 1 did not measure that latency)."""
    rows: list[tuple[str, str, bool | None, str]] = []
    floor_at_200 = floor if floor.get("latency_ms") == 200 else {}
    crit = next((p for p in report.get("critical_path", {}).get("per_latency", []) if p["latency_ms"] == 200), None)
    if crit:
        floor_overhead = floor_at_200.get("single_overhead_p50_ms")
        rows.append(
            (
                "overhead ≤ 30 ms p50 at L = 200 ms",
                fmt(crit["overhead_p50_ms"], 1, " ms"),
                crit["overhead_p50_ms"] <= TARGETS["overhead_p50_ms"],
                fmt(floor_overhead, 1, " ms"),
            )
        )
        rows.append(
            (
                "overhead ≤ 5 % at L = 200 ms",
                fmt(crit["overhead_p50_pct"], 1, " %"),
                crit["overhead_p50_pct"] <= TARGETS["overhead_p50_pct"],
                fmt(
                    floor_overhead / floor_at_200["critical_path_ms"] * 100 if floor_overhead is not None else None,
                    1,
                    " %",
                ),
            )
        )
    return rows


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool | None, str]]:
    """(target, measured, met, the floor's figure in the same run or "–")."""
    floor = report.get("floor") or {}
    rows = _overhead_targets(report, floor)
    hundred = at_hundred(report.get("concurrency", {}).get("levels", []))
    if hundred:
        ratio = hundred.get("p95_over_single_p50")
        floor_hundred = at_hundred(floor.get("levels", []))
        rows.append(
            (
                "100 concurrent: p95 ≤ 1.5 × single",
                ratio_text(hundred),
                ratio is not None and ratio <= TARGETS["p95_over_single"] and hundred["errors"] == 0,
                ratio_text(floor_hundred) if floor_hundred else "–",
            )
        )
    rules = report.get("rules", {}).get("single")
    if rules:
        rows.append(
            (
                "rules mode ≤ 100 ms p50",
                fmt(rules["p50_ms"], 1, " ms"),
                rules["p50_ms"] <= TARGETS["rules_p50_ms"],
                "–",
            )
        )
    jobs = report.get("job_path") or {}
    if "overhead_p50_ms" in jobs:
        rows.append(
            (
                "PostgreSQL job path: overhead ≤ +5 ms p50",
                fmt(jobs["overhead_p50_ms"], 1, " ms"),
                jobs["overhead_p50_ms"] <= TARGETS["job_overhead_p50_ms"],
                "–",
            )
        )
        rows.append(
            (
                f"PostgreSQL: first event p95 ≤ 100 ms at {jobs['burst']} concurrent",
                fmt(jobs["first_event_p95_ms"], 0, " ms"),
                jobs["first_event_p95_ms"] <= TARGETS["first_event_p95_ms"],
                "–",
            )
        )
    economy = report.get("economy", {}).get("full_research")
    if economy:
        rows.append(
            (
                "9 LLM calls per full research",
                fmt(economy["llm_calls"], 0),
                economy["llm_calls"] == TARGETS["llm_calls_full"],
                "–",
            )
        )
    return rows


def markdown(report: dict[str, Any]) -> str:
    """report.md: the header, the targets, then each section that ran, in order."""
    lines = report_sections.header(report) + report_sections.targets_table(targets(report))
    lines += report_sections.critical_path(report)
    lines += report_sections.concurrency(report)
    lines += report_sections.rules_mode(report)
    lines += report_sections.economy(report)
    if report.get("profile"):
        lines += report_comparisons.profile(report["profile"])
    if report.get("floor"):
        lines += report_comparisons.floor(report["floor"], report.get("concurrency"), report.get("critical_path"))
    lines += _job_path(report.get("job_path"))
    if report.get("batches"):
        lines += batch_throughput.report_lines(report["batches"])
    if report.get("replicas"):
        lines += batch_replicas.report_lines(report["replicas"])
    return "\n".join(lines).rstrip() + "\n"


def _job_path(jobs: dict[str, Any] | None) -> list[str]:
    """Section 7: the job path on PostgreSQL (docs/benchmarks.md, "PostgreSQL job path (issue 48)")."""
    if not jobs:
        return []
    if "skipped" in jobs:
        return ["## 7. The job path on PostgreSQL", "", f"Skipped: {jobs['skipped']}.", ""]
    return [
        "## 7. The job path on PostgreSQL",
        "",
        f"`{jobs['command']}` against a new database on the local server: direct p50 "
        f"{fmt(jobs['direct_p50_ms'], 1, ' ms')}, job p50 {fmt(jobs['job_p50_ms'], 1, ' ms')}, **overhead p50 "
        f"{fmt(jobs['overhead_p50_ms'], 1, ' ms')}** (p95 {fmt(jobs['overhead_p95_ms'], 1, ' ms')}); "
        f"{jobs['burst']} concurrent asynchronous submissions: first event p50 "
        f"{fmt(jobs['first_event_p50_ms'], 0, ' ms')}, **p95 {fmt(jobs['first_event_p95_ms'], 0, ' ms')}**, "
        f"all done in {fmt(jobs['all_done_s'], 1, ' s')}.",
        "",
    ]


def _clean(value: Any) -> Any:
    """NaN → None (JSON has no NaN), floats rounded to 3 decimals."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 3)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write(report: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """report.json, report.md and report.png in ``out_dir``; their paths by kind."""
    out_dir.mkdir(parents=True, exist_ok=True)
    # names of the hops, in order, for the tables and the chart
    for p in (report.get("critical_path") or {}).get("per_latency", []):
        p["hops_ms_names"] = list(p.get("hops_p50_ms") or {})
    paths = {"json": out_dir / "report.json", "md": out_dir / "report.md", "png": out_dir / "report.png"}
    paths["json"].write_text(json.dumps(_clean(report), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["md"].write_text(markdown(report), encoding="utf-8")
    chart(report, paths["png"])
    return paths
