"""Each verdict scored on the bars after it with ``shared_contracts.scoring.score_trade``, and whether its call was
right: a BUY or SELL when its trade was profitable, a HOLD when the long it declined lost after the round-trip
cost (``shared_contracts.scoring.hold_right``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluation.bar_series import BarSeries
from evaluation.records import ResearchRecord
from shared_contracts.scoring import HOLD_HORIZON_DAYS, HOLDING_DAYS, TradeOutcome, hold_right, score_trade


@dataclass(frozen=True)
class ScoredVerdict:
    record: ResearchRecord
    outcome: TradeOutcome
    hold_right: bool | None = None
    """A HOLD: whether the long it declined lost after costs (None while unknown, and for BUY and SELL)."""

    @property
    def right(self) -> bool | None:
        """Whether the call was right (what its confidence is the probability of); None while unknown."""
        return self.hold_right if self.record.action == "HOLD" else self.outcome.profitable


def score_verdicts(
    records: Sequence[ResearchRecord], series: Mapping[str, BarSeries], *, allow_short: bool, cost: float
) -> list[ScoredVerdict]:
    """The outcome of every ``ok`` record, in the order given: entered at the next open, ``cost`` the round
    trip's. A verdict lacking its action, horizon, stop or take-profit is ``not_scorable``."""
    scored = []
    for record in records:
        if record.status != "ok":
            continue
        bars = series.get(record.symbol)
        right = _hold_right(record, bars, cost) if record.action == "HOLD" else None
        scored.append(ScoredVerdict(record, _outcome(record, bars, allow_short, cost), right))
    return scored


def _hold_right(record: ResearchRecord, series: BarSeries | None, cost: float) -> bool | None:
    if series is None:
        return None
    return hold_right(
        series.from_entry(record.entry_day, HOLD_HORIZON_DAYS),
        signal_day=record.entry_day,
        symbol=record.symbol,
        analysis_day=record.analysis_date,
        cost=cost,
    )


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
