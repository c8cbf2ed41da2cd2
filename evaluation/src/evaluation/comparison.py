"""The portfolio section: the policy's portfolio next to the technical_only configuration's and the baselines'
over the same periods, on each sample, each with its mean gross exposure; and the policy's mean excess return
per period over each baseline (95 % CI) with a plain statement of whether that interval excludes 0.

``equal_weight_matched`` is the equal-weight universe scaled, on each sample, to the policy's mean gross
exposure there (the rest in cash): the same average exposure, no selection and no timing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from evaluation.bar_series import BarSeries
from evaluation.baselines import ExposureSource, Weighting, equal_weight, ma_crossover, verdict_targets
from evaluation.formatting import percent
from evaluation.portfolio import StrategyRun, periods_per_year, rebalance_periods, simulate, summarise
from evaluation.records import ResearchRecord
from evaluation.samples import SAMPLES, Sample, by_sample, sample_of
from verdict_statistics.metrics import Estimate, equity_curve, mean_ci
from verdict_statistics.scorecard import Json, estimate_json, rounded

STRATEGIES = ("policy", "technical_only", "equal_weight_matched", "equal_weight", "ma_crossover")
STRATEGY_LABELS = {
    "policy": "policy",
    "technical_only": "technical_only",
    "equal_weight_matched": "equal-weight universe at the policy's exposure",
    "equal_weight": "equal-weight universe",
    "ma_crossover": "MA 50/200 crossover",
}


@dataclass(frozen=True)
class PortfolioOptions:
    """How the verdicts become a portfolio (docs/evaluation.md, "Portfolio")."""

    allow_short: bool = False
    weighting: Weighting = "equal"
    exposure: ExposureSource = "market"
    budget: float = 1.0
    cost: float = 0.003


def period_unit(grid: str) -> str:
    """What one rebalancing period is called in the report's text."""
    return "week" if grid == "week-end" else "month"


def edge_statement(estimate: Estimate, baseline: str, unit: str) -> str:
    """Whether the policy's mean excess return per period over ``baseline`` is distinguishable from 0."""
    label = STRATEGY_LABELS[baseline]
    if estimate.n == 0:
        return f"No {unit}s in this sample."
    if estimate.low is None or estimate.high is None:
        return f"Only 1 {unit}: too few for a confidence interval, so no edge over {label} can be claimed."
    numbers = (
        f"mean excess return per {unit} {percent(rounded(estimate.value))} (95 % CI "
        f"{percent(rounded(estimate.low))} to {percent(rounded(estimate.high))}, n = {estimate.n} {unit}s)"
    )
    if estimate.low > 0:
        return f"The policy beat the {label}: {numbers}; the interval lies above 0 ({unit}s taken as independent)."
    if estimate.high < 0:
        return f"The policy did significantly worse than the {label}: {numbers}; the interval lies below 0."
    return f"No significant edge over the {label}: {numbers}; the interval includes 0."


def _scaled(run: StrategyRun, factor: float) -> StrategyRun:
    return StrategyRun(
        [r * factor for r in run.returns],
        [e * factor for e in run.exposure],
        [t * factor for t in run.turnover],
        [c * factor for c in run.costs],
    )


def _matching_factor(policy: StrategyRun, universe: StrategyRun, indices: Sequence[int]) -> float:
    """The policy's mean gross exposure over ``indices`` divided by the universe's (0 without periods)."""
    held = sum(universe.exposure[i] for i in indices)
    return sum(policy.exposure[i] for i in indices) / held if held > 0 else 0.0


def portfolio_section(
    records: Sequence[ResearchRecord],
    series: Mapping[str, BarSeries],
    symbols: Sequence[str],
    grid: Sequence[date],
    *,
    grid_kind: str,
    end: date,
    split_date: date,
    options: PortfolioOptions,
) -> Json:
    """Period returns, exposures, equity curves and summaries of every strategy, and the policy's excess over
    each other one."""
    periods = rebalance_periods(grid, end)
    per_year, unit = periods_per_year(grid_kind), period_unit(grid_kind)
    budget = options.budget

    def verdicts(configuration: str) -> StrategyRun:
        rule = verdict_targets(
            records,
            "policy" if configuration == "policy" else "technical_only",
            series,
            allow_short=options.allow_short,
            weighting=options.weighting,
            exposure=options.exposure,
            budget=budget,
        )
        return simulate(periods, symbols, series, rule, budget=budget, cost=options.cost)

    universe = simulate(periods, symbols, series, equal_weight(series, budget=budget), budget=budget, cost=options.cost)
    runs = {"policy": verdicts("policy"), "technical_only": verdicts("technical_only")}
    samples = by_sample(range(len(periods)), lambda i: periods[i].start, split_date)
    matched = {
        sample: _scaled(universe, _matching_factor(runs["policy"], universe, indices))
        for sample, indices in samples.items()
    }
    runs["equal_weight_matched"] = matched["whole"]
    runs["equal_weight"] = universe
    crossover = ma_crossover(series, budget=budget)
    runs["ma_crossover"] = simulate(periods, symbols, series, crossover, budget=budget, cost=options.cost)

    def run_on(name: str, sample: Sample) -> StrategyRun:
        return matched[sample] if name == "equal_weight_matched" else runs[name]

    policy = runs["policy"].returns
    excess: Json = {}
    for baseline in STRATEGIES[1:]:
        excess[baseline] = {}
        for sample in SAMPLES:
            other = run_on(baseline, sample).returns
            estimate = mean_ci([policy[i] - other[i] for i in samples[sample]])
            excess[baseline][sample] = {
                "mean": estimate_json(estimate),
                "excludes_zero": estimate.excludes_zero(),
                "statement": edge_statement(estimate, baseline, unit),
            }
    return {
        "n_symbols": len(symbols),
        "periods_per_year": per_year,
        "period_unit": unit,
        "budget": budget,
        "cost": options.cost,
        "weighting": options.weighting,
        "exposure_source": options.exposure,
        "periods": [
            {
                "start": period.start.isoformat(),
                "end": period.end.isoformat(),
                "sample": sample_of(period.start, split_date),
                "returns": {name: rounded(run.returns[i]) for name, run in runs.items()},
                "exposure": {name: rounded(run.exposure[i]) for name, run in runs.items()},
                "turnover": {name: rounded(run.turnover[i]) for name, run in runs.items()},
            }
            for i, period in enumerate(periods)
        ],
        "curves": {
            "dates": [d.isoformat() for d in [period.start for period in periods[:1]] + [p.end for p in periods]],
            "equity": {name: _curve(run.returns) for name, run in runs.items()},
        },
        "strategies": {
            name: {sample: summarise(run_on(name, sample), indices, per_year) for sample, indices in samples.items()}
            for name in STRATEGIES
        },
        "excess_over": excess,
    }


def _curve(returns: Sequence[float]) -> list[float | None]:
    """The equity curve from 1.0, one point per period boundary; empty without periods."""
    return [rounded(value) for value in equity_curve(returns)] if returns else []
