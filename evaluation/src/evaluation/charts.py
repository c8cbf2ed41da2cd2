"""The report's PNG charts, drawn from report.json's figures: equity curves of the policy and the baselines
(each labelled with its mean gross exposure), the reliability diagram of the policy's confidence (trades and
HOLDs, equal-count bins in and out of sample), and the actions per grid date. Reproducible: the Agg canvas, fixed
fonts and sizes, and no ``Software`` metadata, so the same report gives the same bytes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from evaluation.comparison import STRATEGIES, STRATEGY_LABELS
from verdict_statistics.scorecard import ACTIONS

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

CHART_FILES = {
    "equity_curves": "equity_curves.png",
    "reliability": "reliability.png",
    "actions_over_time": "actions_over_time.png",
}
DPI = 100
STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "evaluation-report",
    "path.simplify": False,
    "patch.linewidth": 0.3,
}
COLOURS = {
    "policy": "#1f77b4",
    "technical_only": "#9467bd",
    "equal_weight_matched": "#2ca02c",
    "equal_weight": "#7f7f7f",
    "ma_crossover": "#ff7f0e",
    "BUY": "#2ca02c",
    "HOLD": "#bdbdbd",
    "SELL": "#d62728",
    "no_verdict": "#ffffff",
}


def write_charts(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Draw the three charts into ``out_dir``; their paths, in ``CHART_FILES`` order."""
    drawers = {"equity_curves": _equity, "reliability": _reliability, "actions_over_time": _actions}
    return [_draw(drawers[key], report, out_dir / name) for key, name in CHART_FILES.items()]


def write_reliability(calibration: dict[str, Any], path: Path) -> Path:
    """The reliability chart alone, from a configuration's calibration section (``report.json``'s
    ``calibration.policy``: the samples, each with ``trades`` and ``hold``)."""
    return _draw(_reliability, {"calibration": {"policy": calibration}}, path)


def _draw(drawer: Callable[[dict[str, Any]], Figure], report: dict[str, Any], path: Path) -> Path:
    with matplotlib.rc_context(STYLE):
        figure = drawer(report)
        FigureCanvasAgg(figure)
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def _dates(values: list[str]) -> list[date]:
    return [date.fromisoformat(value) for value in values]


def _split_line(axes: Axes, report: dict[str, Any], days: list[date]) -> None:
    split = date.fromisoformat(report["options"]["split_date"])
    if days and days[0] < split <= days[-1]:
        label = "split (out-of-sample →)"
        # on a date axis matplotlib converts the date itself; its stubs only know floats
        axes.axvline(cast(float, split), linestyle="--", color="black", linewidth=0.8, label=label)


def _equity(report: dict[str, Any]) -> Figure:
    portfolio = report["portfolio"]
    days = _dates(portfolio["curves"]["dates"])
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot()
    for name in STRATEGIES:
        curve = portfolio["curves"]["equity"][name]
        if curve:
            width = 2 if name == "policy" else 1
            exposure = portfolio["strategies"][name]["whole"]["mean_exposure"]
            label = f"{STRATEGY_LABELS[name]} (mean exposure {exposure * 100:.0f} %)" if exposure is not None else name
            axes.plot(days, curve, label=label, color=COLOURS[name], linewidth=width)
    _split_line(axes, report, days)
    n, unit = len(portfolio["periods"]), portfolio["period_unit"]
    axes.set_title(f"Equity from 1.0, rebalanced every {unit}, N = {portfolio['n_symbols']} symbols, n = {n} {unit}s")
    axes.set_ylabel("equity")
    if days:
        axes.legend(loc="upper left")
    figure.subplots_adjust(left=0.08, right=0.97, top=0.93, bottom=0.08)
    return figure


RELIABILITY_PANELS = {"trades": "BUY+SELL: the trade was profitable", "hold": "HOLD: the declined long lost"}
RELIABILITY_MARGIN = 0.05


def _reliability(report: dict[str, Any]) -> Figure:
    """Per kind of call (trades, HOLDs), the policy's equal-count confidence bins against their hit rates (95 %
    Wilson), out of sample filled and in sample hollow, with the realised hit rate out of sample; both axes span
    the same range around the points, so the diagonal is perfect calibration."""
    figure = Figure(figsize=(10, 5))
    for column, (kind, title) in enumerate(RELIABILITY_PANELS.items(), start=1):
        axes = figure.add_subplot(1, 2, column)
        samples = {s: report["calibration"]["policy"][s][kind] for s in ("in_sample", "out_of_sample")}
        values: list[float] = []
        for sample, section in samples.items():
            out = sample == "out_of_sample"
            label = "out-of-sample bins" if out else "in-sample bins"
            for b in section["bins"]:
                x, rate = b["mean_confidence"], b["hit_rate"]
                low = rate["value"] - rate["low"] if rate["low"] is not None else 0.0
                high = rate["high"] - rate["value"] if rate["high"] is not None else 0.0
                face = COLOURS["policy"] if out else "white"
                axes.errorbar(
                    [x],
                    [rate["value"]],
                    yerr=[[low], [high]],
                    fmt="o",
                    color=COLOURS["policy"],
                    capsize=3,
                    markerfacecolor=face,
                    alpha=1.0 if out else 0.6,
                    label=label,
                )
                label = "_nolegend_"
                values += [x, rate["low"] if rate["low"] is not None else rate["value"]]
                values += [rate["high"] if rate["high"] is not None else rate["value"]]
        realised = samples["out_of_sample"]["hit_rate"]["value"]
        if realised is not None:
            axes.axhline(realised, linestyle=":", color="black", linewidth=0.8, label="out-of-sample hit rate")
            values.append(realised)
        start, end = _span(values)
        axes.plot([start, end], [start, end], linestyle="--", color="grey", linewidth=0.8, label="perfectly calibrated")
        axes.set_xlim(start, end)
        axes.set_ylim(start, end)
        axes.set_aspect("equal")
        axes.set_xlabel("mean confidence in bin")
        axes.set_ylabel("share right (95 % Wilson CI)")
        n_in, n_out = samples["in_sample"]["n"], samples["out_of_sample"]["n"]
        axes.set_title(f"{title}\nout of sample n = {n_out}, in sample n = {n_in}")
        axes.legend(loc="upper left")
    figure.suptitle("Reliability of the policy's confidence (equal-count bins)")
    figure.subplots_adjust(left=0.07, right=0.98, top=0.85, bottom=0.1, wspace=0.25)
    return figure


def _span(values: list[float]) -> tuple[float, float]:
    """An axis range around ``values`` with a margin, on tenths, within [0, 1]; [0, 1] without values."""
    if not values:
        return 0.0, 1.0
    low = max(0.0, math.floor((min(values) - RELIABILITY_MARGIN) * 10) / 10)
    high = min(1.0, math.ceil((max(values) + RELIABILITY_MARGIN) * 10) / 10)
    return low, high


def _actions(report: dict[str, Any]) -> Figure:
    figure = Figure(figsize=(9, 5))
    for row, configuration in enumerate(("policy", "technical_only"), start=1):
        axes = figure.add_subplot(2, 1, row)
        rows = report["actions_by_date"][configuration]
        days = _dates([r["date"] for r in rows])
        bottom = [0] * len(rows)
        width = 0.7 * min((b - a).days for a, b in itertools.pairwise(days)) if len(days) > 1 else 20
        for key in (*ACTIONS, "no_verdict"):
            counts = [r[key] for r in rows]
            label = "no verdict" if key == "no_verdict" else key
            axes.bar(days, counts, width=width, bottom=bottom, color=COLOURS[key], edgecolor="#555555", label=label)
            bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
        axes.set_title(f"{configuration}: actions per grid date (n = {sum(bottom)} researches)")
        axes.set_ylabel("researches")
        if rows:
            axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.subplots_adjust(left=0.07, right=0.86, top=0.94, bottom=0.06, hspace=0.3)
    return figure
