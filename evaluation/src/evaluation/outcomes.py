"""Each verdict scored on the bars after it with ``shared_contracts.scoring.score_trade``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluation.bar_series import BarSeries
from evaluation.records import ResearchRecord
from shared_contracts.scoring import HOLDING_DAYS, TradeOutcome, score_trade


@dataclass(frozen=True)
class ScoredVerdict:
    record: ResearchRecord
    outcome: TradeOutcome


def score_verdicts(
    records: Sequence[ResearchRecord], series: Mapping[str, BarSeries], *, allow_short: bool, cost: float
) -> list[ScoredVerdict]:
    """The outcome of every ``ok`` record, in the order given: entered at the next open, ``cost`` the round
    trip's. A verdict lacking its action, horizon, stop or take-profit is ``not_scorable``."""
    scored = []
    for record in records:
        if record.status != "ok":
            continue
        scored.append(ScoredVerdict(record, _outcome(record, series.get(record.symbol), allow_short, cost)))
    return scored


def _outcome(record: ResearchRecord, series: BarSeries | None, allow_short: bool, cost: float) -> TradeOutcome:
    action, horizon = record.action, record.time_horizon
    stop, target = record.stop_percent, record.take_profit_percent
    if action is None or horizon is None or stop is None or target is None:
        return TradeOutcome("not_scorable", action or "", reason="the verdict lacks action, horizon, stop or target")
    bars = series.from_entry(record.entry_day, HOLDING_DAYS.get(horizon, 0)) if series is not None else []
    return score_trade(
        bars,
        entry_day=record.entry_day,
        action=action,
        time_horizon=horizon,
        stop_percent=stop,
        take_profit_percent=target,
        allow_short=allow_short,
        analysis_day=record.analysis_date,
        symbol=record.symbol,
        cost=cost,
    )
