"""The portfolio section: the policy's portfolio next to the technical_only configuration's and the baselines'
over the same periods, on each sample, with the policy's mean excess return per period over each (95 % CI)
and a plain statement of whether that interval excludes 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from evaluation.bar_series import BarSeries
from evaluation.baselines import always_hold, buy_and_hold, ma_crossover
from evaluation.formatting import percent
from evaluation.portfolio import periods_per_year, rebalance_periods, simulate, summarise, verdict_rule
from evaluation.records import ResearchRecord
from evaluation.samples import SAMPLES, by_sample, sample_of
from evaluation.serialise import Json, estimate_json, rounded
from shared_contracts.metrics import Estimate, equity_curve, mean_ci

STRATEGIES = ("policy", "technical_only", "buy_and_hold", "ma_crossover", "always_hold")
STRATEGY_LABELS = {
    "policy": "policy",
    "technical_only": "technical_only",
    "buy_and_hold": "buy-and-hold",
    "ma_crossover": "MA 50/200 crossover",
    "always_hold": "always-HOLD (cash)",
}


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
        return f"The policy beat {label}: {numbers}; the interval lies above 0 ({unit}s taken as independent)."
    if estimate.high < 0:
        return f"The policy did significantly worse than {label}: {numbers}; the interval lies below 0."
    return f"No significant edge over {label}: {numbers}; the interval includes 0."


def portfolio_section(
    records: Sequence[ResearchRecord],
    series: Mapping[str, BarSeries],
    symbols: Sequence[str],
    grid: Sequence[date],
    *,
    grid_kind: str,
    end: date,
    split_date: date,
    allow_short: bool,
) -> Json:
    """Period returns, equity curves and summaries of every strategy, and the policy's excess over each other."""
    periods = rebalance_periods(grid, end)
    per_year, unit = periods_per_year(grid_kind), period_unit(grid_kind)
    rules = {
        "policy": verdict_rule(records, "policy", allow_short=allow_short),
        "technical_only": verdict_rule(records, "technical_only", allow_short=allow_short),
        "buy_and_hold": buy_and_hold(series),
        "ma_crossover": ma_crossover(series),
        "always_hold": always_hold(),
    }
    runs = {name: simulate(periods, symbols, series, rule) for name, rule in rules.items()}
    samples = by_sample(range(len(periods)), lambda i: periods[i].start, split_date)
    policy = runs["policy"].returns
    excess: Json = {}
    for baseline in STRATEGIES[1:]:
        excess[baseline] = {}
        for sample in SAMPLES:
            estimate = mean_ci([policy[i] - runs[baseline].returns[i] for i in samples[sample]])
            excess[baseline][sample] = {
                "mean": estimate_json(estimate),
                "excludes_zero": estimate.excludes_zero(),
                "statement": edge_statement(estimate, baseline, unit),
            }
    return {
        "n_symbols": len(symbols),
        "periods_per_year": per_year,
        "period_unit": unit,
        "periods": [
            {
                "start": period.start.isoformat(),
                "end": period.end.isoformat(),
                "sample": sample_of(period.start, split_date),
                "returns": {name: rounded(run.returns[i]) for name, run in runs.items()},
                "turnover": {name: rounded(run.turnover[i]) for name, run in runs.items()},
            }
            for i, period in enumerate(periods)
        ],
        "curves": {
            "dates": [d.isoformat() for d in [period.start for period in periods[:1]] + [p.end for p in periods]],
            "equity": {name: _curve(run.returns) for name, run in runs.items()},
        },
        "strategies": {
            name: {
                sample: summarise([run.returns[i] for i in indices], [run.turnover[i] for i in indices], per_year)
                for sample, indices in samples.items()
            }
            for name, run in runs.items()
        },
        "excess_over": excess,
    }


def _curve(returns: Sequence[float]) -> list[float | None]:
    """The equity curve from 1.0, one point per period boundary; empty without periods."""
    return [rounded(value) for value in equity_curve(returns)] if returns else []
