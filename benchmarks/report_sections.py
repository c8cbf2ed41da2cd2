"""Sections 1 to 4 of report.md, with its header and targets table: each takes the report (or the target rows)
and gives its lines, none when its section did not run.

Example::

    lines = header(report) + targets_table(targets(report)) + critical_path(report) + concurrency(report)
"""

from __future__ import annotations

from typing import Any

from benchmarks.report_text import cpu_line, fmt, yes


def header(report: dict[str, Any]) -> list[str]:
    """The title and the run's conditions: date, commit, machine, load, command, what is measured."""
    meta = report["meta"]
    m = meta["machine"]
    lines = [
        f"# Benchmark report ({meta['config']})",
        "",
        f"- date: {meta['date']}; commit: {meta['git']}",
        f"- machine: {m['nproc']} CPUs, {m['cpu_model']}, Python {m['python']}, {m['platform']}",
        f"- load average (1/5/15 min) at start: {m['loadavg_at_start']}, at end: {meta.get('loadavg_at_end')}",
        f"- command: `{meta['command']}`; duration {fmt(meta.get('duration_s'), 0, ' s')}",
        "- every service is a real uvicorn process on loopback; LLM mode = every role answered by the fake "
        "OpenAI-compatible server after a fixed latency L; figures are medians over the runs stated",
        f"- the services' logging: {meta.get('service_logging', 'LOG_LEVEL=WARNING, access log off')}",
        "",
    ]
    return lines


def targets_table(rows: list[tuple[str, str, bool | None, str]]) -> list[str]:
    """The targets beside what was measured and the floor's figure (nothing without rows)."""
    if not rows:
        return []
    lines = [
        "## Targets (information, not a gate)",
        "",
        "| target | measured | met | floor, same run (section 6) |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t} | {v} | {yes(ok)} | {fl} |" for t, v, ok, fl in rows]
    lines.append("")
    return lines


def critical_path(report: dict[str, Any]) -> list[str]:
    """Section 1: one research at a time in LLM mode, wall time against the critical path, the overhead by hop."""
    crit = report.get("critical_path")
    if not crit:
        return []
    lines = [
        "## 1. Critical-path efficiency (LLM mode, one research at a time)",
        "",
        "| L | runs | LLM calls | wall p50 | wall p95 | critical path 4·L | overhead p50 | overhead p95 | "
        "overhead p50 % | sequential pipeline p50 | sequential / wall |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in crit["per_latency"]:
        lines.append(
            f"| {p['latency_ms']} ms | {p['runs']} | {fmt(p['llm_calls_per_research'], 0)} | "
            f"{fmt(p['wall_p50_ms'], 1, ' ms')} | {fmt(p['wall_p95_ms'], 1, ' ms')} | {p['critical_path_ms']} ms | "
            f"{fmt(p['overhead_p50_ms'], 1, ' ms')} | {fmt(p['overhead_p95_ms'], 1, ' ms')} | "
            f"{fmt(p['overhead_p50_pct'], 2, ' %')} | {fmt(p['sequential_p50_ms'], 1, ' ms')} | "
            f"{fmt(p['sequential_ratio_p50'], 2, '×')} |"
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
                + " | ".join(fmt(p["hops_p50_ms"].get(h), 1) for p in crit["per_latency"])
                + " |"
            )
        lines.append(
            "| LLM time on the critical path (measured) | "
            + " | ".join(fmt(p["llm_path_p50_ms"], 1) for p in crit["per_latency"])
            + " |"
        )
    lines.append("")
    return lines


def concurrency(report: dict[str, Any]) -> list[str]:
    """Section 2: latency, memory, throughput and CPU per process at each concurrency level."""
    conc = report.get("concurrency")
    if not conc:
        return []
    services = sorted({s for lv in conc["levels"] for s in lv["peak_rss_mb"]})
    lines = [
        f"## 2. Concurrency (LLM mode, L = {conc['latency_ms']} ms, full researches)",
        "",
        "| concurrent | requests | errors | p50 | p95 | p99 | p95 / single p50 | researches/s | "
        + " | ".join(f"peak RSS {s}" for s in services)
        + " | load avg after |",
        "|---" * (8 + len(services) + 1) + "|",
    ]
    for lv in conc["levels"]:
        lines.append(
            f"| {lv['concurrency']} | {lv['requests']} | {lv['errors']} | {fmt(lv['p50_ms'], 0, ' ms')} | "
            f"{fmt(lv['p95_ms'], 0, ' ms')} | {fmt(lv['p99_ms'], 0, ' ms')} | "
            f"{fmt(lv.get('p95_over_single_p50'), 2, '×')} | {fmt(lv['throughput_rps'], 1)} | "
            + " | ".join(fmt(lv["peak_rss_mb"].get(s), 0, " MiB") for s in services)
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
                + " | ".join(fmt(cpu.get(p), 1) for p in procs)
                + f" | {fmt(sum(cpu.get(p, 0.0) for p in procs), 1)} |"
            )
    errs = {k: v for lv in conc["levels"] for k, v in lv["error_kinds"].items()}
    if errs:
        lines += ["", f"Errors: {errs}"]
    lines.append("")
    return lines


def rules_mode(report: dict[str, Any]) -> list[str]:
    """Section 3: the rules engines, one research at a time and at saturation."""
    rules = report.get("rules")
    if not rules:
        return []
    s = rules["single"]
    lines = [
        "## 3. Rules mode (no LLM; four services end to end)",
        "",
        f"Single research, one at a time: p50 **{fmt(s['p50_ms'], 1, ' ms')}**, p95 {fmt(s['p95_ms'], 1, ' ms')} "
        f"({s['requests']} researches in {len(s['batches'])} batches, {s['errors']} errors). "
        f"Saturation: **{fmt(rules['saturation_rps'], 1)} researches/s** ({rules['saturation_workers']} "
        "closed-loop clients).",
        "",
        "| closed-loop clients | researches/s | p50 | p95 | errors |",
        "|---|---|---|---|---|",
    ]
    for e in rules["saturation"]:
        lines.append(
            f"| {e['workers']} | {fmt(e['throughput_rps'], 1)} | {fmt(e['p50_ms'], 0, ' ms')} | "
            f"{fmt(e['p95_ms'], 0, ' ms')} | {e['errors']} |"
        )
    best = next((e for e in rules["saturation"] if e["workers"] == rules["saturation_workers"]), None)
    if best and best.get("cpu_ms_per_research"):
        lines += ["", cpu_line(f"CPU per research at saturation ({best['workers']} clients)", best)]
    lines.append("")
    return lines


def economy(report: dict[str, Any]) -> list[str]:
    """Section 4: LLM calls and tokens of a full research and of its retries; the debate input's projection."""
    eco = report.get("economy")
    if not eco:
        return []
    full = eco["full_research"]
    lines = [
        "## 4. LLM economy (token counts as reported by the fake server: 1 token per 4 bytes)",
        "",
        "| scenario | LLM calls | failed calls | prompt tokens | completion tokens |",
        "|---|---|---|---|---|",
        f"| full research | {fmt(full['llm_calls'], 0)} | 0 | {fmt(full['prompt_tokens'], 0)} | "
        f"{fmt(full['completion_tokens'], 0)} |",
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
                f"{fmt(proj['bytes_ratio'], 3)} | {proj['raw_tokens']} | {proj['projected_tokens']} | "
                f"{fmt(proj['tokens_ratio'], 3)} |"
            )
    proj = eco.get("projection") or {}
    if "advocate_prompt_tokens" in proj:
        lines += [
            "",
            f"An advocate's whole prompt (system + user, LLM mode) as the fake LLM received it: "
            f"{fmt(proj['advocate_prompt_bytes'], 0)} bytes, {fmt(proj['advocate_prompt_tokens'], 0)} tokens.",
        ]
    lines.append("")
    return lines
