"""A portfolio a trader could have run: on every grid date (monthly on the month-end grid) a rule gives target
weights, signed fractions of the capital whose absolute values sum to at most the gross-exposure budget; the
portfolio trades to them at the next open, pays the round-trip cost on what it trades (half on each side),
and holds them to the next rebalance's open.

An order that cannot be filled keeps the previous weight: a stock without a bar in the period (halted), a buy
into a limit-up open or a sale into a limit-down one. The weights that can move are then scaled down, never
up, so that the gross exposure stays within the budget. Weights are not rebalanced inside a period (each
stock's period return is its open-to-open return).

Example::

    periods = rebalance_periods(grid, end)
    run = simulate(periods, symbols, series, rule, budget=1.0, cost=0.003)
    run.exposure  # gross exposure per period, each <= 1.0
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from evaluation.bar_series import BarSeries
from shared_contracts.price_limits import LimitSide, blocks, opened_at_limit
from verdict_statistics.metrics import equity_curve, max_drawdown, mean_ci, sharpe
from verdict_statistics.scorecard import Json, estimate_json, rounded

PERIODS_PER_YEAR = {"month-end": 12, "week-end": 52}
"""Rebalancing periods a year (for the Sharpe ratio) by grid; any other grid counts as monthly."""
EPSILON = 1e-12
"""Rounding room when checking a gross exposure against its budget."""

TargetRule = Callable[[date], Mapping[str, float]]
"""The target weights (signed fractions of the capital) a strategy wants at a grid date, from what was public
at that date's close; the absolute values sum to at most the budget."""


def periods_per_year(grid: str) -> int:
    return PERIODS_PER_YEAR.get(grid, 12)


@dataclass(frozen=True)
class Period:
    start: date
    end: date


@dataclass(frozen=True)
class StrategyRun:
    returns: list[float]
    """The portfolio's return in each period, after costs."""
    exposure: list[float]
    """The gross exposure held in each period: the sum of the absolute weights."""
    turnover: list[float]
    """The sum of |weight change| traded at each period's start (from cash before the first)."""
    costs: list[float]
    """What the trades cost in each period, as a fraction of the capital."""


def rebalance_periods(grid: Sequence[date], end: date) -> list[Period]:
    """One period from each grid date to the next; the last grid date holds to ``end`` when ``end`` is later."""
    dates = sorted(set(grid))
    if dates and end > dates[-1]:
        dates.append(end)
    return [Period(start, stop) for start, stop in itertools.pairwise(dates)]


def _trade_price(bars: BarSeries, period: Period) -> tuple[float, LimitSide | None] | None:
    """The open at which a trade placed at the close of ``period.start`` is filled, and whether that open was at
    a daily limit; None when the stock has no bar in the period."""
    index = bars.next_index(period.start)
    if index is None or bars.bars[index].day > period.end:
        return None
    entry = bars.bars[index]
    previous = bars.bars[index - 1].close if index > 0 else 0.0
    return entry.open, opened_at_limit(bars.symbol, previous_close=previous, open_price=entry.open, day=entry.day)


def _period_return(bars: BarSeries, period: Period, entry: float) -> float:
    """Open after ``period.start`` to the open after ``period.end`` (the last close on or before it at the end
    of the data)."""
    index = bars.next_index(period.end)
    exit_price = bars.bars[index].open if index is not None else bars.close_on(period.end)
    return exit_price / entry - 1.0 if exit_price is not None and entry > 0 else 0.0


def simulate(
    periods: Sequence[Period],
    symbols: Sequence[str],
    series: Mapping[str, BarSeries],
    rule: TargetRule,
    *,
    budget: float,
    cost: float,
) -> StrategyRun:
    """Each period's return after costs, gross exposure, turnover and cost under ``rule``."""
    known = set(symbols)
    held: dict[str, float] = {}
    run = StrategyRun([], [], [], [])
    for period in periods:
        targets = {s: w for s, w in rule(period.start).items() if s in known}
        names = sorted(set(targets) | set(held))
        prices = {s: _trade_price(series[s], period) for s in names}
        stuck: dict[str, float] = {}
        for s in names:
            change = targets.get(s, 0.0) - held.get(s, 0.0)
            price = prices[s]
            if change != 0 and (price is None or blocks(1 if change > 0 else -1, price[1])):
                stuck[s] = held.get(s, 0.0)
        movable = {s: w for s, w in targets.items() if s not in stuck and w != 0}
        room = max(budget - sum(abs(w) for w in stuck.values()), 0.0)
        wanted = sum(abs(w) for w in movable.values())
        scale = min(1.0, room / wanted) if wanted > 0 else 1.0
        weights = {s: w for s, w in stuck.items() if w != 0} | {s: w * scale for s, w in movable.items()}
        traded = sum(abs(weights.get(s, 0.0) - held.get(s, 0.0)) for s in names)
        paid = traded * cost / 2.0
        earned = 0.0
        for s, w in weights.items():
            price = prices[s]
            if price is not None:
                earned += w * _period_return(series[s], period, price[0])
        gross = sum(abs(w) for w in weights.values())
        assert gross <= budget + EPSILON, f"gross exposure {gross} above the budget {budget}"
        run.returns.append(earned - paid)
        run.exposure.append(gross)
        run.turnover.append(traded)
        run.costs.append(paid)
        held = weights
    return run


def summarise(run: StrategyRun, indices: Sequence[int], per_year: int) -> Json:
    """Over the periods ``indices``: their count, total return, mean period return (95 % CI), Sharpe annualised
    with ``per_year`` periods, max drawdown, mean gross exposure, mean turnover and the costs paid."""
    returns = [run.returns[i] for i in indices]
    curve = equity_curve(returns)
    return {
        "periods": len(returns),
        "total_return": rounded(curve[-1] - 1.0),
        "mean_return": estimate_json(mean_ci(returns)),
        "sharpe": rounded(sharpe(returns, per_year)),
        "max_drawdown": rounded(max_drawdown(curve)),
        "mean_exposure": _mean([run.exposure[i] for i in indices]),
        "turnover": _mean([run.turnover[i] for i in indices]),
        "costs": rounded(sum(run.costs[i] for i in indices)),
    }


def _mean(values: Sequence[float]) -> float | None:
    return rounded(sum(values) / len(values)) if values else None
