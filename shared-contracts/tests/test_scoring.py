"""Scoring on hand-made bar series: stop first, target first, a gap through a level, both on one day, the
horizon exit, SELL semantics, HOLD, pending and not scorable; and a sleeve's period return."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from shared_contracts.scoring import HOLDING_DAYS, DailyBar, period_return, score_trade, stale_entry

START = date(2024, 1, 1)


def bars(*rows: tuple[float, float, float, float]) -> list[DailyBar]:
    """Entry bar (close 100) first, then the given (open, high, low, close) days."""
    days = [(100.0, 100.0, 100.0, 100.0), *rows]
    return [DailyBar(START + timedelta(days=i), o, h, lo, c) for i, (o, h, lo, c) in enumerate(days)]


def flat(n: int, price: float = 100.0) -> list[tuple[float, float, float, float]]:
    return [(price, price + 1, price - 1, price)] * n


def buy(series: list[DailyBar], **kwargs: object) -> object:
    args = {"entry_day": START, "action": "BUY", "time_horizon": "SHORT_TERM", "stop_percent": -5.0}
    return score_trade(series, **{**args, "take_profit_percent": 10.0, **kwargs})  # type: ignore[arg-type]


def test_the_stop_first() -> None:
    outcome = buy(bars(*flat(3), (99, 99, 94, 95), *flat(30)))
    assert (outcome.exit_reason, outcome.exit_price, outcome.holding_days) == ("stop", 95.0, 4)
    assert outcome.call_return == pytest.approx(-0.05)
    assert outcome.realised_return == pytest.approx(-0.05)
    assert outcome.profitable is False


def test_the_target_first() -> None:
    outcome = buy(bars(*flat(2), (105, 111, 104, 108), *flat(30)))
    assert (outcome.exit_reason, outcome.exit_price) == ("target", pytest.approx(110.0))
    assert outcome.call_return == pytest.approx(0.10)
    assert outcome.profitable is True


def test_a_gap_through_a_level_exits_at_the_open() -> None:
    down = buy(bars((90, 91, 88, 89), *flat(30)))
    assert (down.exit_reason, down.exit_price) == ("stop", 90.0)
    up = buy(bars((115, 118, 114, 116), *flat(30)))
    assert (up.exit_reason, up.exit_price) == ("target", 115.0)


def test_both_levels_on_one_day_count_the_stop() -> None:
    outcome = buy(bars((100, 112, 94, 101), *flat(30)))
    assert (outcome.exit_reason, outcome.exit_price) == ("stop", 95.0)


def test_the_horizon_exit_at_the_last_close() -> None:
    series = bars(*flat(19), (102, 103, 101, 102.5), *flat(5, 200))
    outcome = buy(series)
    assert outcome.exit_reason == "horizon"
    assert outcome.holding_days == HOLDING_DAYS["SHORT_TERM"] == 20
    assert outcome.exit_day == series[20].day
    assert outcome.call_return == pytest.approx(0.025)


def test_a_sell_is_a_short_call_realised_flat_for_an_a_share_investor() -> None:
    series = bars(*flat(2), (96, 97, 89, 91), *flat(30))
    sell = buy(series, action="SELL", stop_percent=5.0, take_profit_percent=-10.0)
    assert (sell.exit_reason, sell.exit_price) == ("target", 90.0)
    assert sell.call_return == pytest.approx(0.10)
    assert sell.underlying_return == pytest.approx(-0.10)
    assert sell.realised_return == 0.0
    shorted = buy(series, action="SELL", stop_percent=5.0, take_profit_percent=-10.0, allow_short=True)
    assert shorted.realised_return == pytest.approx(0.10)
    squeezed = buy(bars((101, 106, 100, 104), *flat(30)), action="SELL")
    assert (squeezed.exit_reason, squeezed.exit_price) == ("stop", 105.0)


def test_hold_is_flat_with_the_underlying_over_the_horizon() -> None:
    outcome = buy(bars(*flat(19), (110, 111, 109, 110), *flat(5)), action="HOLD")
    assert outcome.status == "scored"
    assert outcome.call_return is None
    assert outcome.realised_return == 0.0
    assert outcome.underlying_return == pytest.approx(0.10)
    assert outcome.profitable is None


def test_pending_before_the_horizon_and_not_scorable_without_an_entry() -> None:
    pending = buy(bars(*flat(5)))
    assert pending.status == "pending"
    assert "5 of 20" in pending.reason
    early_stop = buy(bars((94, 95, 93, 94)))
    assert early_stop.status == "scored"  # a level hit before the horizon ends is final
    missing = buy(bars(*flat(30)), entry_day=START - timedelta(days=1))
    assert missing.status == "not_scorable"


def test_entry_on_a_non_trading_day_uses_the_last_close_before_it() -> None:
    outcome = buy(bars(*flat(30)), entry_day=START + timedelta(days=1, hours=0))
    assert outcome.entry_day == START + timedelta(days=1)


def test_period_return_holds_an_exposure_and_leaves_at_a_level() -> None:
    series = bars((101, 102, 100, 101), (101, 103, 100, 102), (102, 104, 90, 95), (95, 96, 94, 95))
    assert period_return(series, start_day=START, end_day=series[3].day, exposure=0.5) == pytest.approx(-0.025)
    stopped = period_return(series, start_day=START, end_day=series[4].day, exposure=1.0, stop_percent=-8.0)
    assert stopped == pytest.approx(-0.08)
    assert period_return(series, start_day=START, end_day=series[4].day, exposure=0.0) == 0.0
    assert period_return(series, start_day=series[4].day, end_day=START, exposure=1.0) == 0.0


def test_a_verdict_priced_on_a_stale_close_is_not_scorable() -> None:
    """000792.SZ as of 2021-06-30 was priced on 2020-04-29 (a 15-month gap): no trade at that close."""
    series = bars(*flat(30))
    on_time = buy(series, analysis_day=START + timedelta(days=14))
    assert on_time.status == "scored"
    late = buy(series, analysis_day=START + timedelta(days=15))
    assert late.status == "not_scorable"
    assert "15 days before the analysis date" in late.reason
    assert late.call_return is None
    assert stale_entry(START, None) is None
