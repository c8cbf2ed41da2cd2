"""report.png: the benchmark's measures as six panels (matplotlib, imported when the chart is drawn).

Example::

    chart(report, out_dir / "report.png")
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def chart(report: dict[str, Any], path: Path) -> None:
    """report.png: six panels, one per measure (empty where its section did not run)."""
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
    levels = (report.get("concurrency") or {}).get("levels") or []
    _one_research(axes[0][0], crit)
    _overhead_by_hop(axes[0][1], crit)
    _latency(axes[0][2], report, levels)
    _memory_and_throughput(axes[1][0], levels)
    _rules_saturation(axes[1][1], report)
    _fixes(axes[1][2], report)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _one_research(ax: Axes, crit: list[dict[str, Any]]) -> None:
    """Section 1: wall time against the critical path and the sequential pipeline, per latency."""
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


def _overhead_by_hop(ax: Axes, crit: list[dict[str, Any]]) -> None:
    """Section 1: the overhead above the LLM time, stacked by hop."""
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


def _latency(ax: Axes, report: dict[str, Any], levels: list[dict[str, Any]]) -> None:
    """Section 2: p50/p95/p99 against concurrency, the floor's p95 and the 1.5 × single line."""
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


def _memory_and_throughput(ax: Axes, levels: list[dict[str, Any]]) -> None:
    """Section 2: peak RSS per process and researches per second against concurrency."""
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


def _rules_saturation(ax: Axes, report: dict[str, Any]) -> None:
    """Section 3: throughput and p50 against closed-loop clients."""
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


def _fixes(ax: Axes, report: dict[str, Any]) -> None:
    """Section 5: the before and after of each measure."""
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
