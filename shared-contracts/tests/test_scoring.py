"""Scoring on hand-made bar series: entry at the next open, no fill at a limit open, the round-trip cost, stop
first, target first, a gap through a level, both on one day, the horizon exit, SELL semantics, HOLD, pending
and not scorable; and the forward return the score is ranked against."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from shared_contracts.scoring import (
    HOLDING_DAYS,
    ROUND_TRIP_COST,
    DailyBar,
    TradeOutcome,
    forward_return,
    hold_right,
    score_trade,
    stale_entry,
)

START = date(2024, 1, 1)


def bars(*rows: tuple[float, float, float, float]) -> list[DailyBar]:
    """The signal bar (close 100) first, then the given (open, high, low, close) days; the entry is the first
    of those days' open."""
    days = [(100.0, 100.0, 100.0, 100.0), *rows]
    return [DailyBar(START + timedelta(days=i), o, h, lo, c) for i, (o, h, lo, c) in enumerate(days)]


def flat(n: int, price: float = 100.0) -> list[tuple[float, float, float, float]]:
    return [(price, price + 1, price - 1, price)] * n


def buy(series: list[DailyBar], **kwargs: object) -> TradeOutcome:
    args: dict[str, object] = {"entry_day": START, "action": "BUY", "time_horizon": "SHORT_TERM", "cost": 0.0}
    return score_trade(series, **{**args, "stop_percent": -5.0, "take_profit_percent": 10.0, **kwargs})  # type: ignore[arg-type]


def test_the_entry_is_the_next_open_not_the_signal_close() -> None:
    series = bars((102, 103, 101, 102), *flat(30, 102))
    outcome = buy(series)
    assert (outcome.entry_day, outcome.entry_price) == (series[1].day, 102.0)
    assert outcome.underlying_return == pytest.approx(0.0)  # 102 to 102, not 100 to 102


def test_the_round_trip_cost_comes_off_the_call_and_the_realised_return() -> None:
    series = bars(*flat(19), (102, 103, 101, 102), *flat(5))
    paid = buy(series, cost=ROUND_TRIP_COST)
    assert ROUND_TRIP_COST == 0.003
    assert paid.underlying_return == pytest.approx(0.02)
    assert paid.call_return == pytest.approx(0.017)
    assert paid.realised_return == pytest.approx(0.017)
    assert buy(series, cost=0.01).call_return == pytest.approx(0.01)
    hold = buy(series, action="HOLD", cost=ROUND_TRIP_COST)
    assert hold.realised_return == 0.0  # no trade, no cost


def test_a_buy_that_opens_limit_up_is_not_filled() -> None:
    limit_up = bars((110, 110, 110, 110), *flat(30, 110))
    outcome = buy(limit_up, symbol="600519.SH")
    assert outcome.status == "no_fill"
    assert "limit-up" in outcome.reason
    assert outcome.call_return is None
    assert outcome.profitable is None
    assert buy(limit_up, symbol="300750.SZ").status == "scored"  # ChiNext: ±20 %
    assert buy(limit_up, symbol="AAPL").status == "scored"  # no daily limit
    assert buy(limit_up, symbol="600519.SH", action="SELL").status == "scored"  # a seller is filled at limit-up


def test_a_sell_that_opens_limit_down_is_not_filled() -> None:
    limit_down = bars((90, 90, 90, 90), *flat(30, 90))
    assert buy(limit_down, symbol="000001.SZ", action="SELL").status == "no_fill"
    assert buy(limit_down, symbol="000001.SZ", action="HOLD").status == "scored"


def test_the_stop_first() -> None:
    outcome = buy(bars(*flat(3), (99, 99, 94, 95), *flat(30)))
    assert (outcome.exit_reason, outcome.exit_price, outcome.holding_days) == ("stop", 95.0, 4)
    assert outcome.call_return == pytest.approx(-0.05)
    assert outcome.realised_return == pytest.approx(-0.05)
    assert outcome.profitable is False


def test_the_levels_are_set_from_the_entry_open() -> None:
    outcome = buy(bars((80, 81, 79, 80), (79, 80, 75.5, 77), *flat(30, 77)), stop_percent=-5.0)
    assert (outcome.exit_reason, outcome.exit_price) == ("stop", pytest.approx(76.0))


def test_the_target_first() -> None:
    outcome = buy(bars(*flat(2), (105, 111, 104, 108), *flat(30)))
    assert (outcome.exit_reason, outcome.exit_price) == ("target", pytest.approx(110.0))
    assert outcome.call_return == pytest.approx(0.10)
    assert outcome.profitable is True


def test_a_gap_through_a_level_exits_at_the_open() -> None:
    down = buy(bars(*flat(1), (90, 91, 88, 89), *flat(30)))
    assert (down.exit_reason, down.exit_price) == ("stop", 90.0)
    up = buy(bars(*flat(1), (115, 118, 114, 116), *flat(30)))
    assert (up.exit_reason, up.exit_price) == ("target", 115.0)


def test_both_levels_on_one_day_count_the_stop() -> None:
    outcome = buy(bars(*flat(1), (100, 112, 94, 101), *flat(30)))
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
    squeezed = buy(bars(*flat(1), (101, 106, 100, 104), *flat(30)), action="SELL")
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
    no_open_yet = buy(bars())
    assert no_open_yet.status == "pending"
    early_stop = buy(bars(*flat(1), (94, 95, 93, 94)))
    assert early_stop.status == "scored"  # a level hit before the horizon ends is final
    missing = buy(bars(*flat(30)), entry_day=START - timedelta(days=1))
    assert missing.status == "not_scorable"


def test_a_signal_on_a_non_trading_day_enters_at_the_next_open_after_it() -> None:
    series = bars(*flat(30))
    outcome = buy(series, entry_day=START + timedelta(days=1, hours=0))
    assert outcome.entry_day == START + timedelta(days=2)


def test_a_verdict_priced_on_a_stale_close_is_not_scorable() -> None:
    """000792.SZ as of 2021-06-30 was priced on 2020-04-29 (a 15-month gap): no trade after that close."""
    series = bars(*flat(30))
    on_time = buy(series, analysis_day=START + timedelta(days=14))
    assert on_time.status == "scored"
    late = buy(series, analysis_day=START + timedelta(days=15))
    assert late.status == "not_scorable"
    assert "15 days before the analysis date" in late.reason
    assert late.call_return is None
    assert stale_entry(START, None) is None


def test_the_forward_return_is_open_after_the_signal_to_the_close_20_bars_on() -> None:
    series = bars((101, 102, 100, 101), *flat(18, 101), (105, 106, 104, 106.05), *flat(3, 300))
    forward = forward_return(series, signal_day=START, symbol="600519.SH")
    assert forward is not None
    assert (forward.entry_day, forward.exit_day) == (series[1].day, series[20].day)
    assert forward.value == pytest.approx(106.05 / 101 - 1)
    assert forward.at_limit is None
    assert forward_return(series[:20], signal_day=START) is None  # 19 bars after the signal: not yet
    up = forward_return(bars((110, 110, 110, 110), *flat(25)), signal_day=START, symbol="600519.SH")
    assert up is not None
    assert up.at_limit == "up"
    assert forward_return(series, signal_day=START, analysis_day=START + timedelta(days=20)) is None  # stale


def test_a_hold_is_right_when_the_long_it_declined_lost_after_the_cost() -> None:
    # entered at the open after the signal (100), left at the close of the 20th bar, no stop or target
    dips = bars(*flat(5), (100, 101, 50, 100), *flat(13), (100.2, 100.5, 100, 100.2), *flat(5, 300))
    assert HOLDING_DAYS["SHORT_TERM"] == 20
    assert hold_right(dips, signal_day=START) is True  # +0.2 % before a 0.3 % round trip: no money made
    assert hold_right(dips, signal_day=START, cost=0.001) is False
    assert hold_right(bars(*flat(19), (100, 100, 100, 100)), signal_day=START, cost=0.0) is True  # flat: ≤ 0
    assert hold_right(dips[:20], signal_day=START) is None  # 19 bars after the signal: not yet
    assert hold_right(dips, signal_day=START, analysis_day=START + timedelta(days=20)) is None  # stale close


def test_a_hold_whose_declined_long_could_not_be_filled_is_not_scored() -> None:
    limit_up = bars((110, 110, 110, 110), *flat(25, 100))
    assert hold_right(limit_up, signal_day=START, symbol="600519.SH") is None
    assert hold_right(limit_up, signal_day=START, symbol="AAPL") is True  # no limit: 110 → 100
