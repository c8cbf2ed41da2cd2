"""The walk-forward report: ``build_report`` turns the runner's records and bars into one JSON document,
``write_report`` writes it as report.json, report.md and three PNG charts. Both are deterministic: the same
inputs give byte-identical files (everything sorted, floats rounded, no timestamps).

Example::

    report = build_report(records, bars, ReportOptions(start=date(2023, 1, 31), end=date(2025, 9, 30),
                                                       split_date=date(2025, 1, 1), grid="monthly",
                                                       experts=("technical_analyst",), engine="rules"))
    paths = write_report(report, Path("out"))  # report.json, report.md, *.png
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from evaluation.bar_series import index_bars
from evaluation.baselines import ExposureSource, Weighting
from evaluation.charts import CHART_FILES, write_charts
from evaluation.comparison import PortfolioOptions, portfolio_section
from evaluation.markdown import render_markdown
from evaluation.outcomes import ScoredVerdict, score_verdicts
from evaluation.ranking import (
    buy_against_rest,
    fallback_dates,
    information_coefficient,
    quintile_spread,
    ranked_cells,
    ranked_verdicts,
)
from evaluation.records import Configuration, ResearchRecord
from evaluation.samples import Sample, by_sample
from evaluation.stops import ATR_BAND, stop_by_symbol, stop_distances, stop_samples
from evaluation.verdicts import (
    KINDS,
    action_distribution,
    action_outcomes,
    actions_by_date,
    against_constant,
    calibration_section,
    coverage,
    directional_concentration,
)
from shared_contracts.scoring import HOLDING_DAYS, IC_HORIZON_DAYS, ROUND_TRIP_COST, DailyBar
from verdict_statistics.benchmarks import LIQUIDITY_FACTOR, liquidity_benchmark, size_neutral_ic
from verdict_statistics.metrics import MIN_SCORED_PER_MONTH
from verdict_statistics.scorecard import ACTIONS, DIGITS, Json

SCHEMA_VERSION = 3
CONFIGURATIONS: tuple[Configuration, ...] = ("policy", "technical_only")
LLM_WARNING = (
    "An LLM produced these verdicts. It may have seen prices and news of the test period in training, so even "
    "the out-of-sample figures can be optimistic: read them as an upper bound, not as a forecast."
)


@dataclass(frozen=True)
class ReportOptions:
    """What the run was: the date range and grid, the in/out-of-sample split, the experts and engine, whether
    a SELL may be realised as a short, and where it ran (for the report's header)."""

    start: date
    end: date
    split_date: date
    """Analysis dates before it are in-sample, on or after it out-of-sample."""
    grid: str
    experts: tuple[str, ...]
    engine: str
    allow_short: bool = False
    command: str = ""
    commit: str = ""
    machine: str = ""
    llm: bool = False
    """Whether an LLM made the verdicts (the report then warns that it may have seen the test period)."""
    cost: float = ROUND_TRIP_COST
    """The round-trip cost every trade pays (a fraction of its value)."""
    weighting: Weighting = "equal"
    """How the portfolio splits its gross exposure among the chosen stocks."""
    exposure: ExposureSource = "market"
    """Where the portfolio's gross exposure comes from: the market view (``market``), the verdicts' positions
    capped at the budget (``verdict``) or the whole budget (``constant``)."""
    budget: float = 1.0
    """The portfolio's gross-exposure budget (1.0: fully invested, no leverage)."""

    @property
    def portfolio(self) -> PortfolioOptions:
        """How the verdicts become a portfolio."""
        return PortfolioOptions(self.allow_short, self.weighting, self.exposure, self.budget, self.cost)


def build_report(
    records: Sequence[ResearchRecord], bars: Mapping[str, Sequence[DailyBar]], options: ReportOptions
) -> Json:
    """The report as a JSON-ready dict (structure: docs/evaluation.md, "report.json")."""
    ordered = sorted(records, key=lambda r: (r.configuration, r.symbol, r.analysis_date, repr(r)))
    symbols = sorted({r.symbol for r in ordered})
    grid = sorted({r.analysis_date for r in ordered})
    series = index_bars(bars, symbols)
    split = options.split_date
    coverage_json, actions_json, by_date_json, per_action_json = {}, {}, {}, {}
    calibration_json, stops_json, stops_by_symbol_json = {}, {}, {}
    ic_json, quintiles_json, like_json, concentration_json = {}, {}, {}, {}
    benchmarks_json, size_neutral_json = {}, {}
    for configuration in CONFIGURATIONS:
        mine = [r for r in ordered if r.configuration == configuration]
        samples = by_sample(mine, lambda r: r.analysis_date, split)
        scored = by_sample(
            score_verdicts(mine, series, allow_short=options.allow_short, cost=options.cost),
            lambda s: s.record.analysis_date,
            split,
        )
        ranked = by_sample(ranked_verdicts(mine, series), lambda r: r.record.analysis_date, split)
        excluded = fallback_dates(mine)
        ic_json[configuration] = {
            sample: information_coefficient(rs)
            | {"fallback_verdicts_left_out_on": by_sample(excluded, date.fromisoformat, split)[sample]}
            for sample, rs in ranked.items()
        }
        cells = {sample: ranked_cells(rs, series) for sample, rs in ranked.items()}
        benchmarks_json[configuration] = {
            sample: {"liquidity": liquidity_benchmark(cs)} for sample, cs in cells.items()
        }
        size_neutral_json[configuration] = {sample: size_neutral_ic(cs) for sample, cs in cells.items()}
        quintiles_json[configuration] = {
            sample: quintile_spread(rs, cost=options.cost) for sample, rs in ranked.items()
        }
        like_json[configuration] = {sample: buy_against_rest(rs, cost=options.cost) for sample, rs in ranked.items()}
        distances = stop_distances(mine, series)
        coverage_json[configuration] = {sample: coverage(rs) for sample, rs in samples.items()}
        actions_json[configuration] = {sample: action_distribution(rs) for sample, rs in samples.items()}
        by_date_json[configuration] = actions_by_date(mine)
        per_action_json[configuration] = {
            sample: {action: action_outcomes(ss, action) for action in ACTIONS} for sample, ss in scored.items()
        }
        calibration_json[configuration] = calibration_samples(scored)
        concentration_json[configuration] = {sample: directional_concentration(rs) for sample, rs in samples.items()}
        stops_json[configuration] = stop_samples(distances, split)
        stops_by_symbol_json[configuration] = stop_by_symbol(distances)
    return {
        "schema_version": SCHEMA_VERSION,
        "options": _options_json(options),
        "method": {
            "holding_days": dict(sorted(HOLDING_DAYS.items())),
            "confidence_level": 0.95,
            "float_digits": DIGITS,
            "atr_band": list(ATR_BAND),
            "entry": "the open of the first bar after the signal close (as_of); no fill at a limit-up open for a "
            "buy, a limit-down open for a sale",
            "round_trip_cost": options.cost,
            "ic_horizon_days": IC_HORIZON_DAYS,
            "ic_min_per_date": MIN_SCORED_PER_MONTH,
            "benchmark_liquidity": LIQUIDITY_FACTOR,
            "ic_size_neutral": "per date, the OLS residual of the score on log traded value (the benchmark's, with "
            "an intercept) ranked against the forward return; 0 on a date whose residual is nil",
            "score": "verdict.score when present, else the debate's confidence signed by its direction",
            "in_sample": f"analysis_date < {split.isoformat()}",
            "out_of_sample": f"analysis_date >= {split.isoformat()}",
        },
        "symbols": symbols,
        "grid": [day.isoformat() for day in grid],
        "coverage": coverage_json,
        "actions": actions_json,
        "actions_by_date": by_date_json,
        "concentration": concentration_json,
        "per_action": per_action_json,
        "ic": ic_json,
        "benchmarks": benchmarks_json,
        "ic_size_neutral": size_neutral_json,
        "quintiles": quintiles_json,
        "like_for_like": like_json,
        "portfolio": portfolio_section(
            ordered,
            series,
            symbols,
            grid,
            grid_kind=options.grid,
            end=options.end,
            split_date=split,
            options=options.portfolio,
        ),
        "calibration": calibration_json,
        "stop_distance": stops_json,
        "stop_distance_by_symbol": stops_by_symbol_json,
        "warnings": [LLM_WARNING] if options.llm else [],
        "charts": dict(CHART_FILES),
    }


def calibration_samples(scored: Mapping[Sample, Sequence[ScoredVerdict]]) -> Json:
    """``calibration[C]``: the calibration section of each sample, and out of sample each against the constant
    known at the split (the in-sample hit rate)."""
    calibration: Json = {sample: calibration_section(ss) for sample, ss in scored.items()}
    calibration["out_of_sample"]["against_in_sample_constant"] = against_constant(
        scored["out_of_sample"], calibration["in_sample"]["brier"]["base_rate"]
    )
    for kind in KINDS:
        calibration["out_of_sample"][kind]["against_in_sample_constant"] = against_constant(
            scored["out_of_sample"], calibration["in_sample"][kind]["hit_rate"]["value"], kind
        )
    return calibration


def write_report(report: Json, out_dir: Path) -> list[Path]:
    """Write report.json, report.md and the charts into ``out_dir`` (created if missing); their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = out_dir / "report.json", out_dir / "report.md"
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    json_path.write_bytes(text.encode("utf-8"))
    markdown_path.write_bytes(render_markdown(report).encode("utf-8"))
    return [json_path, markdown_path, *write_charts(report, out_dir)]


def _options_json(options: ReportOptions) -> Json:
    return {
        "start": options.start.isoformat(),
        "end": options.end.isoformat(),
        "split_date": options.split_date.isoformat(),
        "grid": options.grid,
        "experts": list(options.experts),
        "engine": options.engine,
        "allow_short": options.allow_short,
        "command": options.command,
        "commit": options.commit,
        "machine": options.machine,
        "llm": options.llm,
        "cost": options.cost,
        "weighting": options.weighting,
        "exposure": options.exposure,
        "budget": options.budget,
    }
