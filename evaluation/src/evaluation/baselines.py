"""The baselines the verdicts are compared with, as position rules for ``evaluation.portfolio.simulate``:
always-HOLD (cash), buy-and-hold, and a 50/200-day moving-average crossover. Each decides at a grid date from
the bars up to that date's close only."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from datetime import date

from evaluation.bar_series import BarSeries
from evaluation.portfolio import CASH, Position, PositionRule

FULL = Position(1.0)
FAST, SLOW = 50, 200
"""The moving-average windows, in trading days."""


def always_hold() -> PositionRule:
    """Cash in every sleeve, every month."""

    def rule(symbol: str, day: date) -> Position:
        return CASH

    return rule


def buy_and_hold(series: Mapping[str, BarSeries]) -> PositionRule:
    """Fully invested in every symbol that has a bar on or before the grid date; cash before its first bar."""

    def rule(symbol: str, day: date) -> Position:
        return FULL if series[symbol].has_bar_by(day) else CASH

    return rule


def ma_crossover(series: Mapping[str, BarSeries]) -> PositionRule:
    """Fully invested when the 50-day simple moving average of the closes up to the grid date is above the
    200-day one, else cash; cash while fewer than 200 closes exist."""

    def rule(symbol: str, day: date) -> Position:
        closes = series[symbol].closes_up_to(day, SLOW)
        if len(closes) < SLOW:
            return CASH
        return FULL if statistics.fmean(closes[-FAST:]) > statistics.fmean(closes) else CASH

    return rule
