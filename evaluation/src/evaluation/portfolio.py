"""The portfolio rebalanced on every grid date (monthly on the month-end grid): one equal sleeve (1/N of the
capital) per symbol of the run, each holding from one grid date's close to the next the exposure a rule gives
it, with the verdict's stop and take-profit.

A rule maps (symbol, grid date) to a ``Position``; the verdicts of a configuration are one rule, the baselines
(``evaluation.baselines``) others. A sleeve's period return is ``shared_contracts.scoring.period_return``; the
portfolio's is the mean over the N sleeves (a sleeve without a position holds cash, 0).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from evaluation.bar_series import BarSeries
from evaluation.records import Configuration, ResearchRecord
from evaluation.serialise import Json, estimate_json, rounded
from shared_contracts.metrics import equity_curve, max_drawdown, mean_ci, sharpe
from shared_contracts.scoring import period_return, stale_entry

PERIODS_PER_YEAR = {"month-end": 12, "week-end": 52}
"""Rebalancing periods a year (for the Sharpe ratio) by grid; any other grid counts as monthly."""


def periods_per_year(grid: str) -> int:
    return PERIODS_PER_YEAR.get(grid, 12)


@dataclass(frozen=True)
class Period:
    start: date
    end: date


@dataclass(frozen=True)
class Position:
    exposure: float = 0.0
    """Signed fraction of the sleeve held: 1 fully long, -0.3 a 30 % short, 0 cash."""
    stop_percent: float | None = None
    take_profit_percent: float | None = None


CASH = Position()
PositionRule = Callable[[str, date], Position]
"""The position a strategy takes in a symbol's sleeve at a grid date, knowing only what was public then."""


@dataclass(frozen=True)
class StrategyRun:
    returns: list[float]
    """The portfolio's return in each period."""
    turnover: list[float]
    """Per period: the sum over sleeves of |exposure change| at its start, divided by N (from cash before the
    first period)."""


def rebalance_periods(grid: Sequence[date], end: date) -> list[Period]:
    """One period from each grid date to the next; the last grid date holds to ``end`` when ``end`` is later."""
    dates = sorted(set(grid))
    if dates and end > dates[-1]:
        dates.append(end)
    return [Period(start, stop) for start, stop in itertools.pairwise(dates)]


def verdict_rule(records: Sequence[ResearchRecord], configuration: Configuration, *, allow_short: bool) -> PositionRule:
    """The positions a configuration's verdicts take: BUY ``position_percent`` long, SELL as much short when
    shorting is allowed (else cash), HOLD and no verdict cash; the verdict's stop and take-profit apply. A
    verdict priced on a stale close (``stale_entry``) takes no position."""
    positions: dict[tuple[str, date], Position] = {}
    for r in records:
        if r.configuration != configuration or r.status != "ok" or r.position_percent is None:
            continue
        if stale_entry(r.entry_day, r.analysis_date) is not None:
            continue
        size = r.position_percent / 100.0
        exposure = size if r.action == "BUY" else -size if r.action == "SELL" and allow_short else 0.0
        positions[(r.symbol, r.analysis_date)] = Position(exposure, r.stop_percent, r.take_profit_percent)

    def rule(symbol: str, day: date) -> Position:
        return positions.get((symbol, day), CASH)

    return rule


def simulate(
    periods: Sequence[Period], symbols: Sequence[str], series: Mapping[str, BarSeries], rule: PositionRule
) -> StrategyRun:
    """Each period's portfolio return and turnover under ``rule``."""
    returns, turnover = [], []
    held = dict.fromkeys(symbols, 0.0)
    for period in periods:
        total, change = 0.0, 0.0
        for symbol in symbols:
            position = rule(symbol, period.start)
            if position.exposure != 0:
                total += period_return(
                    series[symbol].between(period.start, period.end),
                    start_day=period.start,
                    end_day=period.end,
                    exposure=position.exposure,
                    stop_percent=position.stop_percent,
                    take_profit_percent=position.take_profit_percent,
                )
            change += abs(position.exposure - held[symbol])
            held[symbol] = position.exposure
        returns.append(total / len(symbols) if symbols else 0.0)
        turnover.append(change / len(symbols) if symbols else 0.0)
    return StrategyRun(returns, turnover)


def summarise(returns: Sequence[float], turnover: Sequence[float], per_year: int) -> Json:
    """Periods, total return, mean period return (95 % CI), Sharpe annualised with ``per_year`` periods, max
    drawdown, mean turnover."""
    curve = equity_curve(returns)
    return {
        "periods": len(returns),
        "total_return": rounded(curve[-1] - 1.0),
        "mean_return": estimate_json(mean_ci(returns)),
        "sharpe": rounded(sharpe(returns, per_year)),
        "max_drawdown": rounded(max_drawdown(curve)),
        "turnover": rounded(sum(turnover) / len(turnover)) if turnover else None,
    }
