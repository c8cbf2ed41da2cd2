"""Sections 5 and 6 of report.md, the comparisons: the profiled code before and after the fixes, and the floor
(the same processes doing none of the work) beside the product.

Example::

    lines = profile(report["profile"]) + floor(report["floor"], report.get("concurrency"), report.get("critical_path"))
"""

from __future__ import annotations

from typing import Any

from benchmarks.report_text import at_hundred, cpu_line, cpu_total, fmt


def profile(prof: dict[str, Any]) -> list[str]:
    """Section 5: the same measures before and after the fixes, two stacks side by side in one run."""
    base = prof["baseline"]
    if "unavailable" in base:
        return ["## 5. Profile and fix (before and after in the same run)", "", f"Not run: {base['unavailable']}.", ""]
    lines = [
        "## 5. Profile and fix (before and after in the same run)",
        "",
        f"Before = the four services and shared-contracts as at `{base['ref'][:10]}` ({base['changed_since']} "
        "since); after = the current code. Two complete stacks run side by side (each with its own fake LLM), "
        "requests alternate between them, both coordinators under the pyinstrument wrapper.",
        "",
        "| measure | before | after |",
        "|---|---|---|",
    ]
    lines += _llm_rows(prof.get("llm"))
    lines += _rules_rows(prof.get("rules"))
    lines.append("")
    return lines + _top_functions(prof.get("rules"))


def _llm_rows(llm: dict[str, Any] | None) -> list[str]:
    """The LLM-mode rows of the before/after table."""
    if not llm:
        return []
    b, a = llm["variants"]["before"], llm["variants"]["after"]
    lines = [
        f"| LLM L = {llm['latency_ms']} ms, one at a time: overhead above 4·L p50 | "
        f"{fmt(b['single_overhead_p50_ms'], 1, ' ms')} | {fmt(a['single_overhead_p50_ms'], 1, ' ms')} |",
        f"| LLM, {b['under_load']['concurrency']} concurrent (profiled): p50 / p95 | "
        f"{fmt(b['under_load']['p50_ms'], 0)} / {fmt(b['under_load']['p95_ms'], 0)} ms | "
        f"{fmt(a['under_load']['p50_ms'], 0)} / {fmt(a['under_load']['p95_ms'], 0)} ms |",
        f"| LLM: CPU per research, four services, one at a time (/proc, no profiler) | "
        f"{fmt(b['stack_cpu_ms_per_research'], 1, ' ms')} | {fmt(a['stack_cpu_ms_per_research'], 1, ' ms')} |",
        f"| LLM: coordinator CPU per research, one at a time (/proc, no profiler) | "
        f"{fmt(b['cpu_ms_per_research'], 1, ' ms')} | {fmt(a['cpu_ms_per_research'], 1, ' ms')} |",
        f"| LLM: coordinator CPU per research under the profiler | "
        f"{fmt(b['profile']['cpu_ms_per_research'], 1, ' ms')} | "
        f"{fmt(a['profile']['cpu_ms_per_research'], 1, ' ms')} |",
    ]
    for name in b["profile"]["watched_ms_per_research"]:
        lines.append(
            f"| LLM: `{name}` per research (profiler, inclusive) | "
            f"{fmt(b['profile']['watched_ms_per_research'][name], 2, ' ms')} | "
            f"{fmt(a['profile']['watched_ms_per_research'][name], 2, ' ms')} |"
        )
    return lines


def _rules_rows(rules: dict[str, Any] | None) -> list[str]:
    """The rules-mode rows of the before/after table."""
    if not rules:
        return []
    b, a = rules["variants"]["before"], rules["variants"]["after"]
    lines = [
        f"| rules, one at a time: p50 / p95 | {fmt(b['single_p50_ms'], 1)} / {fmt(b['single_p95_ms'], 1)} ms | "
        f"{fmt(a['single_p50_ms'], 1)} / {fmt(a['single_p95_ms'], 1)} ms |",
        f"| rules, {b['throughput_workers']} closed-loop clients: researches/s | {fmt(b['throughput_rps'], 1)} | "
        f"{fmt(a['throughput_rps'], 1)} |",
        f"| rules: CPU per research, four services, one at a time (/proc, no profiler) | "
        f"{fmt(b['stack_cpu_ms_per_research'], 1, ' ms')} | {fmt(a['stack_cpu_ms_per_research'], 1, ' ms')} |",
        f"| rules: coordinator CPU per research, one at a time (/proc, no profiler) | "
        f"{fmt(b['cpu_ms_per_research'], 1, ' ms')} | {fmt(a['cpu_ms_per_research'], 1, ' ms')} |",
        f"| rules: coordinator CPU per research under the profiler | "
        f"{fmt(b['profile']['cpu_ms_per_research'], 1, ' ms')} | "
        f"{fmt(a['profile']['cpu_ms_per_research'], 1, ' ms')} |",
    ]
    for name in b["profile"]["watched_ms_per_research"]:
        lines.append(
            f"| rules: `{name}` per research (profiler, inclusive) | "
            f"{fmt(b['profile']['watched_ms_per_research'][name], 2, ' ms')} | "
            f"{fmt(a['profile']['watched_ms_per_research'][name], 2, ' ms')} |"
        )
    return lines


def _top_functions(rules: dict[str, Any] | None) -> list[str]:
    """The coordinator's own functions that took the most time in rules mode, before the fixes."""
    top = rules["variants"]["before"]["profile"]["top_own_functions"][:8] if rules else []
    if not top:
        return []
    lines = [
        "The coordinator's own functions by inclusive time per research, rules mode, before the fixes "
        "(profile files in the results folder):",
        "",
        "| function | file | ms per research |",
        "|---|---|---|",
    ]
    lines += [f"| `{t['function']}` | {t['file']} | {fmt(t['ms_per_research'], 2)} |" for t in top]
    lines.append("")
    return lines


def floor(floor: dict[str, Any], product: dict[str, Any] | None, critical: dict[str, Any] | None) -> list[str]:
    """Section 6: the floor beside sections 1 and 2 (the same levels, measured in the same run when section 2 ran)."""
    same = product if product and product.get("latency_ms") == floor["latency_ms"] else None
    ours = {lv["concurrency"]: lv for lv in (same or {}).get("levels", [])}
    lines = [
        f"## 6. The floor: the same processes, clients and fake LLM, none of the work (L = {floor['latency_ms']} ms)",
        "",
        "Four FastAPI apps under uvicorn making the same calls as the services (the coordinator's peer client, the "
        "services' OpenAI-compatible client, the same replies), with no LangGraph, session store, domain code or "
        "middleware (`benchmarks/floor_apps.py`). What the product costs above this floor is ours; the floor itself "
        "is the frameworks, the clients, the processes and this machine.",
        "",
        _floor_single(floor),
        "",
    ]
    crit = next((p for p in (critical or {}).get("per_latency", []) if p["latency_ms"] == floor["latency_ms"]), None)
    paired = floor.get("ours_hops_p50_ms") if floor.get("paired_with_section_1") else None
    if floor.get("hops_p50_ms"):
        lines += [
            "| between (p50, ms) | floor | product (section 1) | ours = product − floor"
            + (" (p50 of the run-by-run differences) |" if paired else " |"),
            "|---|---|---|---|",
        ]
        for hop, value in floor["hops_p50_ms"].items():
            mine = (crit or {}).get("hops_p50_ms", {}).get(hop)
            diff = paired.get(hop) if paired else (mine - value if mine is not None else None)
            lines.append(f"| {hop.replace('_', ' ')} | {fmt(value, 1)} | {fmt(mine, 1)} | {fmt(diff, 1)} |")
        lines.append("")
    lines += [
        "| concurrent | floor p50 | floor p95 | floor p95 / single p50 | floor errors | floor CPU per research | "
        "product p95 / single p50 (section 2) | product CPU per research (section 2) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lv in floor["levels"]:
        mine = ours.get(lv["concurrency"])
        lines.append(
            f"| {lv['concurrency']} | {fmt(lv['p50_ms'], 0, ' ms')} | {fmt(lv['p95_ms'], 0, ' ms')} | "
            f"{fmt(lv.get('p95_over_single_p50'), 2, '×')} | {lv['errors']} | "
            f"{fmt(cpu_total(lv), 1, ' ms')} | "
            f"{fmt(mine.get('p95_over_single_p50'), 2, '×') if mine else '–'} | "
            f"{fmt(cpu_total(mine), 1, ' ms') if mine else '–'} |"
        )
    shown = at_hundred(floor["levels"]) or max(floor["levels"], key=lambda lv: lv["concurrency"], default=None)
    if shown and shown.get("cpu_ms_per_research"):
        lines += ["", cpu_line(f"Floor CPU per research at {shown['concurrency']} concurrent", shown)]
    lines.append("")
    return lines


def _floor_single(floor: dict[str, Any]) -> str:
    """One research at a time on the floor, and ours run by run when paired with section 1."""
    overhead = f"floor overhead above 4·L p50 **{fmt(floor['single_overhead_p50_ms'], 1, ' ms')}**"
    if not floor.get("paired_with_section_1"):
        return f"One research at a time ({floor['single_runs']} runs): {overhead}."
    return (
        f"One research at a time ({floor['single_runs']} runs, each right after one of section 1's, the two stacks "
        f"running side by side): {overhead}; ours, the product's overhead minus the floor's run by run, p50 "
        f"**{fmt(floor.get('ours_p50_ms'), 1, ' ms')}**."
    )
