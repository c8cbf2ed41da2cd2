"""The report: ``report.json`` (everything measured), ``report.md`` (the tables) and ``report.png`` (the chart)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

TARGETS = {
    "overhead_p50_ms": 30.0,
    "overhead_p50_pct": 5.0,
    "p95_over_single": 1.5,
    "rules_p50_ms": 100.0,
    "llm_calls_full": 9,
}


def _f(value: Any, digits: int = 1, suffix: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int | float):
        return f"{value:.{digits}f}{suffix}"
    return str(value)


def _clean(value: Any) -> Any:
    """NaN → None (JSON has no NaN), floats rounded to 3 decimals."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 3)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _yes(ok: bool | None) -> str:
    return "–" if ok is None else ("yes" if ok else "**no**")


def _hundred(levels: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((lv for lv in levels if lv["concurrency"] == 100), None)


def _ratio_text(level: dict[str, Any]) -> str:
    return f"{_f(level.get('p95_over_single_p50'), 2, '×')} ({_f(level['p95_ms'], 0, ' ms')}), {level['errors']} errors"


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool | None, str]]:
    """(target, measured, met, the floor's figure in the same run or "–")."""
    rows: list[tuple[str, str, bool | None, str]] = []
    floor = report.get("floor") or {}
    floor_at_200 = floor if floor.get("latency_ms") == 200 else {}
    crit = next((p for p in report.get("critical_path", {}).get("per_latency", []) if p["latency_ms"] == 200), None)
    if crit:
        floor_overhead = floor_at_200.get("single_overhead_p50_ms")
        rows.append(
            (
                "overhead ≤ 30 ms p50 at L = 200 ms",
                _f(crit["overhead_p50_ms"], 1, " ms"),
                crit["overhead_p50_ms"] <= TARGETS["overhead_p50_ms"],
                _f(floor_overhead, 1, " ms"),
            )
        )
        rows.append(
            (
                "overhead ≤ 5 % at L = 200 ms",
                _f(crit["overhead_p50_pct"], 1, " %"),
                crit["overhead_p50_pct"] <= TARGETS["overhead_p50_pct"],
                _f(
                    floor_overhead / floor_at_200["critical_path_ms"] * 100 if floor_overhead is not None else None,
                    1,
                    " %",
                ),
            )
        )
    hundred = _hundred(report.get("concurrency", {}).get("levels", []))
    if hundred:
        ratio = hundred.get("p95_over_single_p50")
        floor_hundred = _hundred(floor.get("levels", []))
        rows.append(
            (
                "100 concurrent: p95 ≤ 1.5 × single",
                _ratio_text(hundred),
                ratio is not None and ratio <= TARGETS["p95_over_single"] and hundred["errors"] == 0,
                _ratio_text(floor_hundred) if floor_hundred else "–",
            )
        )
    rules = report.get("rules", {}).get("single")
    if rules:
        rows.append(
            (
                "rules mode ≤ 100 ms p50",
                _f(rules["p50_ms"], 1, " ms"),
                rules["p50_ms"] <= TARGETS["rules_p50_ms"],
                "–",
            )
        )
    economy = report.get("economy", {}).get("full_research")
    if economy:
        rows.append(
            (
                "9 LLM calls per full research",
                _f(economy["llm_calls"], 0),
                economy["llm_calls"] == TARGETS["llm_calls_full"],
                "–",
            )
        )
    return rows


def markdown(report: dict[str, Any]) -> str:
    meta = report["meta"]
    m = meta["machine"]
    lines = [
        f"# Benchmark report ({meta['config']})",
        "",
        f"- date: {meta['date']}; commit: {meta['git']}",
        f"- machine: {m['nproc']} CPUs, {m['cpu_model']}, Python {m['python']}, {m['platform']}",
        f"- load average (1/5/15 min) at start: {m['loadavg_at_start']}, at end: {meta.get('loadavg_at_end')}",
        f"- command: `{meta['command']}`; duration {_f(meta.get('duration_s'), 0, ' s')}",
        "- every service is a real uvicorn process on loopback; LLM mode = every role answered by the fake "
        "OpenAI-compatible server after a fixed latency L; figures are medians over the runs stated",
        f"- the services' logging: {meta.get('service_logging', 'LOG_LEVEL=WARNING, access log off')}",
        "",
    ]
    rows = targets(report)
    if rows:
        lines += [
            "## Targets (information, not a gate)",
            "",
            "| target | measured | met | floor, same run (section 6) |",
            "|---|---|---|---|",
        ]
        lines += [f"| {t} | {v} | {_yes(ok)} | {fl} |" for t, v, ok, fl in rows]
        lines.append("")

    crit = report.get("critical_path")
    if crit:
        lines += [
            "## 1. Critical-path efficiency (LLM mode, one research at a time)",
            "",
            "| L | runs | LLM calls | wall p50 | wall p95 | critical path 4·L | overhead p50 | overhead p95 | "
            "overhead p50 % | sequential pipeline p50 | sequential / wall |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for p in crit["per_latency"]:
            lines.append(
                f"| {p['latency_ms']} ms | {p['runs']} | {_f(p['llm_calls_per_research'], 0)} | "
                f"{_f(p['wall_p50_ms'], 1, ' ms')} | {_f(p['wall_p95_ms'], 1, ' ms')} | {p['critical_path_ms']} ms | "
                f"{_f(p['overhead_p50_ms'], 1, ' ms')} | {_f(p['overhead_p95_ms'], 1, ' ms')} | "
                f"{_f(p['overhead_p50_pct'], 2, ' %')} | {_f(p['sequential_p50_ms'], 1, ' ms')} | "
                f"{_f(p['sequential_ratio_p50'], 2, '×')} |"
            )
        hops = [h for p in crit["per_latency"][:1] for h in p["hops_ms_names"]] if crit["per_latency"] else []
        if hops:
            lines += [
                "",
                "Where the overhead goes (p50, ms; timestamps of the fake LLM's calls against the client's, same "
                "host clock):",
                "",
                "| between | " + " | ".join(f"L = {p['latency_ms']} ms" for p in crit["per_latency"]) + " |",
                "|---|" + "---|" * len(crit["per_latency"]),
            ]
            for h in hops:
                lines.append(
                    f"| {h.replace('_', ' ')} | "
                    + " | ".join(_f(p["hops_p50_ms"].get(h), 1) for p in crit["per_latency"])
                    + " |"
                )
            lines.append(
                "| LLM time on the critical path (measured) | "
                + " | ".join(_f(p["llm_path_p50_ms"], 1) for p in crit["per_latency"])
                + " |"
            )
        lines.append("")

    conc = report.get("concurrency")
    if conc:
        services = sorted({s for lv in conc["levels"] for s in lv["peak_rss_mb"]})
        lines += [
            f"## 2. Concurrency (LLM mode, L = {conc['latency_ms']} ms, full researches)",
            "",
            "| concurrent | requests | errors | p50 | p95 | p99 | p95 / single p50 | researches/s | "
            + " | ".join(f"peak RSS {s}" for s in services)
            + " | load avg after |",
            "|---" * (8 + len(services) + 1) + "|",
        ]
        for lv in conc["levels"]:
            lines.append(
                f"| {lv['concurrency']} | {lv['requests']} | {lv['errors']} | {_f(lv['p50_ms'], 0, ' ms')} | "
                f"{_f(lv['p95_ms'], 0, ' ms')} | {_f(lv['p99_ms'], 0, ' ms')} | "
                f"{_f(lv.get('p95_over_single_p50'), 2, '×')} | {_f(lv['throughput_rps'], 1)} | "
                + " | ".join(_f(lv["peak_rss_mb"].get(s), 0, " MiB") for s in services)
                + f" | {lv['loadavg']['after'][0]} |"
            )
        procs = [
            p
            for p in ("coordinator", "research", "debate", "judge", "fake_llm", "client")
            if any(p in lv.get("cpu_ms_per_research", {}) for lv in conc["levels"])
        ]
        if procs:
            lines += [
                "",
                "CPU time per research by process (ms, user + system from /proc; `client` = the load generator):",
                "",
                "| concurrent | " + " | ".join(procs) + " | total |",
                "|---" * (len(procs) + 2) + "|",
            ]
            for lv in conc["levels"]:
                cpu = lv.get("cpu_ms_per_research", {})
                lines.append(
                    f"| {lv['concurrency']} | "
                    + " | ".join(_f(cpu.get(p), 1) for p in procs)
                    + f" | {_f(sum(cpu.get(p, 0.0) for p in procs), 1)} |"
                )
        errs = {k: v for lv in conc["levels"] for k, v in lv["error_kinds"].items()}
        if errs:
            lines += ["", f"Errors: {errs}"]
        lines.append("")

    rules = report.get("rules")
    if rules:
        s = rules["single"]
        lines += [
            "## 3. Rules mode (no LLM; four services end to end)",
            "",
            f"Single research, one at a time: p50 **{_f(s['p50_ms'], 1, ' ms')}**, p95 {_f(s['p95_ms'], 1, ' ms')} "
            f"({s['requests']} researches in {len(s['batches'])} batches, {s['errors']} errors). "
            f"Saturation: **{_f(rules['saturation_rps'], 1)} researches/s** ({rules['saturation_workers']} "
            "closed-loop clients).",
            "",
            "| closed-loop clients | researches/s | p50 | p95 | errors |",
            "|---|---|---|---|---|",
        ]
        for e in rules["saturation"]:
            lines.append(
                f"| {e['workers']} | {_f(e['throughput_rps'], 1)} | {_f(e['p50_ms'], 0, ' ms')} | "
                f"{_f(e['p95_ms'], 0, ' ms')} | {e['errors']} |"
            )
        best = next((e for e in rules["saturation"] if e["workers"] == rules["saturation_workers"]), None)
        if best and best.get("cpu_ms_per_research"):
            lines += ["", _cpu_line(f"CPU per research at saturation ({best['workers']} clients)", best)]
        lines.append("")

    eco = report.get("economy")
    if eco:
        full = eco["full_research"]
        lines += [
            "## 4. LLM economy (token counts as reported by the fake server: 1 token per 4 bytes)",
            "",
            "| scenario | LLM calls | failed calls | prompt tokens | completion tokens |",
            "|---|---|---|---|---|",
            f"| full research | {_f(full['llm_calls'], 0)} | 0 | {_f(full['prompt_tokens'], 0)} | "
            f"{_f(full['completion_tokens'], 0)} |",
        ]
        for r in eco["retries"]:
            first, retry = r["first_run"], r["retry"]
            lines.append(
                f"| first run, {r['failed_role']} failing ({first['overall_status']}, "
                f"verdict {'yes' if first['has_verdict'] else 'no'}) | {first['llm_calls']} | "
                f"{first['failed_llm_calls']} | {first['prompt_tokens']} | {first['completion_tokens']} |"
            )
            lines.append(
                f"| its retry (HTTP {retry['status']}, complete: {'yes' if retry['complete'] else 'no'}) | "
                f"{retry['llm_calls']} | {retry['failed_llm_calls']} | {retry['prompt_tokens']} | "
                f"{retry['completion_tokens']} |"
            )
        lines += [
            "",
            "Debate input after the shared projection vs the raw expert results:",
            "",
            "| engine | experts | raw bytes | projected bytes | bytes ratio | raw tokens | projected tokens | "
            "tokens ratio |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for engine, proj in (("LLM", eco.get("projection")), ("rules", (report.get("rules") or {}).get("projection"))):
            if proj:
                lines.append(
                    f"| {engine} | {proj['experts']} | {proj['raw_bytes']} | {proj['projected_bytes']} | "
                    f"{_f(proj['bytes_ratio'], 3)} | {proj['raw_tokens']} | {proj['projected_tokens']} | "
                    f"{_f(proj['tokens_ratio'], 3)} |"
                )
        proj = eco.get("projection") or {}
        if "advocate_prompt_tokens" in proj:
            lines += [
                "",
                f"An advocate's whole prompt (system + user, LLM mode) as the fake LLM received it: "
                f"{_f(proj['advocate_prompt_bytes'], 0)} bytes, {_f(proj['advocate_prompt_tokens'], 0)} tokens.",
            ]
        lines.append("")

    prof = report.get("profile")
    if prof:
        lines += _profile_markdown(prof)
    floor = report.get("floor")
    if floor:
        lines += _floor_markdown(floor, report.get("concurrency"), report.get("critical_path"))
    return "\n".join(lines).rstrip() + "\n"


def _floor_markdown(
    floor: dict[str, Any], product: dict[str, Any] | None, critical: dict[str, Any] | None
) -> list[str]:
    """The floor beside section 2 (the same levels, measured in the same run when section 2 ran)."""
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
        _floor_single_text(floor),
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
            lines.append(f"| {hop.replace('_', ' ')} | {_f(value, 1)} | {_f(mine, 1)} | {_f(diff, 1)} |")
        lines.append("")
    lines += [
        "| concurrent | floor p50 | floor p95 | floor p95 / single p50 | floor errors | floor CPU per research | "
        "product p95 / single p50 (section 2) | product CPU per research (section 2) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lv in floor["levels"]:
        mine = ours.get(lv["concurrency"])
        lines.append(
            f"| {lv['concurrency']} | {_f(lv['p50_ms'], 0, ' ms')} | {_f(lv['p95_ms'], 0, ' ms')} | "
            f"{_f(lv.get('p95_over_single_p50'), 2, '×')} | {lv['errors']} | "
            f"{_f(_cpu_total(lv), 1, ' ms')} | "
            f"{_f(mine.get('p95_over_single_p50'), 2, '×') if mine else '–'} | "
            f"{_f(_cpu_total(mine), 1, ' ms') if mine else '–'} |"
        )
    shown = _hundred(floor["levels"]) or max(floor["levels"], key=lambda lv: lv["concurrency"], default=None)
    if shown and shown.get("cpu_ms_per_research"):
        lines += ["", _cpu_line(f"Floor CPU per research at {shown['concurrency']} concurrent", shown)]
    lines.append("")
    return lines


def _floor_single_text(floor: dict[str, Any]) -> str:
    overhead = f"floor overhead above 4·L p50 **{_f(floor['single_overhead_p50_ms'], 1, ' ms')}**"
    if not floor.get("paired_with_section_1"):
        return f"One research at a time ({floor['single_runs']} runs): {overhead}."
    return (
        f"One research at a time ({floor['single_runs']} runs, each right after one of section 1's, the two stacks "
        f"running side by side): {overhead}; ours, the product's overhead minus the floor's run by run, p50 "
        f"**{_f(floor.get('ours_p50_ms'), 1, ' ms')}**."
    )


def _cpu_line(heading: str, measured: dict[str, Any]) -> str:
    cpu = measured["cpu_ms_per_research"]
    return (
        f"{heading}, ms: "
        + ", ".join(f"{k} {_f(v, 1)}" for k, v in cpu.items())
        + f"; total {_f(_cpu_total(measured), 1)}."
    )


def _cpu_total(level: dict[str, Any]) -> float | None:
    cpu = level.get("cpu_ms_per_research") or {}
    return sum(cpu.values()) if cpu else None


def _profile_markdown(prof: dict[str, Any]) -> list[str]:
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
    llm = prof.get("llm")
    if llm:
        b, a = llm["variants"]["before"], llm["variants"]["after"]
        lines += [
            f"| LLM L = {llm['latency_ms']} ms, one at a time: overhead above 4·L p50 | "
            f"{_f(b['single_overhead_p50_ms'], 1, ' ms')} | {_f(a['single_overhead_p50_ms'], 1, ' ms')} |",
            f"| LLM, {b['under_load']['concurrency']} concurrent (profiled): p50 / p95 | "
            f"{_f(b['under_load']['p50_ms'], 0)} / {_f(b['under_load']['p95_ms'], 0)} ms | "
            f"{_f(a['under_load']['p50_ms'], 0)} / {_f(a['under_load']['p95_ms'], 0)} ms |",
            f"| LLM: CPU per research, four services, one at a time (/proc, no profiler) | "
            f"{_f(b['stack_cpu_ms_per_research'], 1, ' ms')} | {_f(a['stack_cpu_ms_per_research'], 1, ' ms')} |",
            f"| LLM: coordinator CPU per research, one at a time (/proc, no profiler) | "
            f"{_f(b['cpu_ms_per_research'], 1, ' ms')} | {_f(a['cpu_ms_per_research'], 1, ' ms')} |",
            f"| LLM: coordinator CPU per research under the profiler | "
            f"{_f(b['profile']['cpu_ms_per_research'], 1, ' ms')} | "
            f"{_f(a['profile']['cpu_ms_per_research'], 1, ' ms')} |",
        ]
        for name in b["profile"]["watched_ms_per_research"]:
            lines.append(
                f"| LLM: `{name}` per research (profiler, inclusive) | "
                f"{_f(b['profile']['watched_ms_per_research'][name], 2, ' ms')} | "
                f"{_f(a['profile']['watched_ms_per_research'][name], 2, ' ms')} |"
            )
    rules = prof.get("rules")
    if rules:
        b, a = rules["variants"]["before"], rules["variants"]["after"]
        lines += [
            f"| rules, one at a time: p50 / p95 | {_f(b['single_p50_ms'], 1)} / {_f(b['single_p95_ms'], 1)} ms | "
            f"{_f(a['single_p50_ms'], 1)} / {_f(a['single_p95_ms'], 1)} ms |",
            f"| rules, {b['throughput_workers']} closed-loop clients: researches/s | {_f(b['throughput_rps'], 1)} | "
            f"{_f(a['throughput_rps'], 1)} |",
            f"| rules: CPU per research, four services, one at a time (/proc, no profiler) | "
            f"{_f(b['stack_cpu_ms_per_research'], 1, ' ms')} | {_f(a['stack_cpu_ms_per_research'], 1, ' ms')} |",
            f"| rules: coordinator CPU per research, one at a time (/proc, no profiler) | "
            f"{_f(b['cpu_ms_per_research'], 1, ' ms')} | {_f(a['cpu_ms_per_research'], 1, ' ms')} |",
            f"| rules: coordinator CPU per research under the profiler | "
            f"{_f(b['profile']['cpu_ms_per_research'], 1, ' ms')} | "
            f"{_f(a['profile']['cpu_ms_per_research'], 1, ' ms')} |",
        ]
        for name in b["profile"]["watched_ms_per_research"]:
            lines.append(
                f"| rules: `{name}` per research (profiler, inclusive) | "
                f"{_f(b['profile']['watched_ms_per_research'][name], 2, ' ms')} | "
                f"{_f(a['profile']['watched_ms_per_research'][name], 2, ' ms')} |"
            )
    lines.append("")
    if rules:
        top = rules["variants"]["before"]["profile"]["top_own_functions"][:8]
        if top:
            lines += [
                "The coordinator's own functions by inclusive time per research, rules mode, before the fixes "
                "(profile files in the results folder):",
                "",
                "| function | file | ms per research |",
                "|---|---|---|",
            ]
            lines += [f"| `{t['function']}` | {t['file']} | {_f(t['ms_per_research'], 2)} |" for t in top]
            lines.append("")
    return lines


def chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(17, 9.5))
    fig.suptitle(
        f"Benchmarks ({report['meta']['config']}) — {report['meta']['machine']['nproc']} CPUs, "
        f"{report['meta']['machine']['cpu_model']}, {report['meta']['date']}",
        fontsize=11,
    )
    crit = (report.get("critical_path") or {}).get("per_latency") or []
    ax = axes[0][0]
    if crit:
        labels = [f"L={p['latency_ms']} ms" for p in crit]
        x = range(len(crit))
        ax.bar([i - 0.27 for i in x], [p["critical_path_ms"] for p in crit], 0.27, label="critical path 4·L")
        ax.bar(list(x), [p["wall_p50_ms"] or 0 for p in crit], 0.27, label="wall p50 (coordinator)")
        ax.bar([i + 0.27 for i in x], [p["sequential_p50_ms"] or 0 for p in crit], 0.27, label="sequential pipeline")
        ax.set_xticks(list(x), labels)
        ax.set_ylabel("ms")
        ax.legend(fontsize=8)
    ax.set_title("1. One research: wall vs critical path vs sequential")

    ax = axes[0][1]
    if crit:
        hops = crit[0]["hops_ms_names"]
        bottom = [0.0] * len(crit)
        for h in hops:
            vals = [max(p["hops_p50_ms"].get(h) or 0.0, 0.0) for p in crit]
            ax.bar([f"L={p['latency_ms']}" for p in crit], vals, bottom=bottom, label=h.replace("_", " "))
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        ax.set_ylabel("ms (p50)")
        ax.legend(fontsize=7)
    ax.set_title("1. Overhead above the LLM time, by hop")

    levels = (report.get("concurrency") or {}).get("levels") or []
    ax = axes[0][2]
    if levels:
        xs = [lv["concurrency"] for lv in levels]
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            ax.plot(xs, [lv[key] for lv in levels], marker="o", label=key.replace("_ms", ""))
        floor_levels = (report.get("floor") or {}).get("levels") or []
        if floor_levels:
            ax.plot(
                [lv["concurrency"] for lv in floor_levels],
                [lv["p95_ms"] for lv in floor_levels],
                marker="x",
                linestyle=":",
                color="black",
                label="p95 of the floor (section 6)",
            )
        single = next((lv["p50_ms"] for lv in levels if lv["concurrency"] == 1), None)
        if single:
            ax.axhline(1.5 * single, color="grey", linestyle="--", label="1.5 × single p50")
        ax.set_xscale("log")
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_xlabel("concurrent researches")
        ax.set_ylabel("latency ms")
        ax.legend(fontsize=8)
    ax.set_title(f"2. Latency vs concurrency (L = {(report.get('concurrency') or {}).get('latency_ms')} ms)")

    ax = axes[1][0]
    if levels:
        xs = [lv["concurrency"] for lv in levels]
        services = sorted({s for lv in levels for s in lv["peak_rss_mb"]})
        for s in services:
            ax.plot(xs, [lv["peak_rss_mb"].get(s) or 0 for lv in levels], marker=".", label=f"RSS {s}")
        ax.set_xscale("log")
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_ylabel("peak RSS MiB")
        ax.set_xlabel("concurrent researches")
        ax2 = ax.twinx()
        ax2.plot(xs, [lv["throughput_rps"] for lv in levels], color="black", marker="s", label="researches/s")
        ax2.set_ylabel("researches/s")
        ax.legend(fontsize=7, loc="upper left")
        ax2.legend(fontsize=7, loc="lower right")
    ax.set_title("2. Peak memory per process and throughput")

    ax = axes[1][1]
    sat = (report.get("rules") or {}).get("saturation") or []
    if sat:
        ax.plot([e["workers"] for e in sat], [e["throughput_rps"] for e in sat], marker="o", label="researches/s")
        ax.set_xlabel("closed-loop clients")
        ax.set_ylabel("researches/s")
        ax2 = ax.twinx()
        ax2.plot([e["workers"] for e in sat], [e["p50_ms"] for e in sat], color="tab:red", marker=".", label="p50 ms")
        ax2.set_ylabel("p50 ms")
        ax.legend(fontsize=8, loc="upper left")
        ax2.legend(fontsize=8, loc="lower right")
    ax.set_title("3. Rules mode saturation")

    ax = axes[1][2]
    prof = report.get("profile") or {}
    bars: list[tuple[str, float, float]] = []
    if prof.get("llm"):
        v = prof["llm"]["variants"]
        bars.append(
            ("LLM overhead p50 ms", v["before"]["single_overhead_p50_ms"], v["after"]["single_overhead_p50_ms"])
        )
        bars.append(
            ("LLM CPU ms/research", v["before"]["stack_cpu_ms_per_research"], v["after"]["stack_cpu_ms_per_research"])
        )
    if prof.get("rules"):
        v = prof["rules"]["variants"]
        bars.append(("rules p50 ms", v["before"]["single_p50_ms"], v["after"]["single_p50_ms"]))
        bars.append(("rules researches/s", v["before"]["throughput_rps"], v["after"]["throughput_rps"]))
        bars.append(
            ("rules CPU ms/research", v["before"]["stack_cpu_ms_per_research"], v["after"]["stack_cpu_ms_per_research"])
        )
    if bars:
        x = range(len(bars))
        ax.bar([i - 0.2 for i in x], [b[1] or 0 for b in bars], 0.4, label="before")
        ax.bar([i + 0.2 for i in x], [b[2] or 0 for b in bars], 0.4, label="after")
        ax.set_xticks(list(x), [b[0] for b in bars], fontsize=8, rotation=12)
        ax.legend(fontsize=8)
    ax.set_title("5. The fixes: before / after (same run)")

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(report: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    # names of the hops, in order, for the tables and the chart
    for p in (report.get("critical_path") or {}).get("per_latency", []):
        p["hops_ms_names"] = list(p.get("hops_p50_ms") or {})
    paths = {"json": out_dir / "report.json", "md": out_dir / "report.md", "png": out_dir / "report.png"}
    paths["json"].write_text(json.dumps(_clean(report), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["md"].write_text(markdown(report), encoding="utf-8")
    chart(report, paths["png"])
    return paths
