"""The portfolio on synthetic bars: trades at the next open, costs on what it trades, no fill at a limit open,
equal and inverse-volatility weights, and a gross exposure that never exceeds its budget."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from evaluation.bar_series import BarSeries
from evaluation.baselines import split_gross, verdict_targets
from evaluation.portfolio import Period, rebalance_periods, simulate
from evaluation.records import ResearchRecord
from shared_contracts.scoring import DailyBar

D0 = date(2024, 1, 1)


def day(i: int) -> date:
    return D0 + timedelta(days=i)


def bars(symbol: str, opens: list[float]) -> BarSeries:
    """One bar a day from D0: each day opens at the given price and closes there too."""
    return BarSeries([DailyBar(day(i), o, o * 1.01, o * 0.99, o) for i, o in enumerate(opens)], symbol)


def fixed(targets: dict[date, dict[str, float]]):  # type: ignore[no-untyped-def]
    return lambda when: targets.get(when, {})


def test_trades_at_the_next_open_and_pays_half_the_round_trip_on_each_side() -> None:
    series = {"600000.SH": bars("600000.SH", [100, 102, 103, 104, 110, 111])}
    periods = [Period(day(0), day(3)), Period(day(3), day(5))]
    rule = fixed({day(0): {"600000.SH": 0.5}})
    run = simulate(periods, list(series), series, rule, budget=1.0, cost=0.003)
    # bought at day 1's open 102, sold at day 4's open 110
    assert run.returns[0] == pytest.approx(0.5 * (110 / 102 - 1) - 0.5 * 0.0015)
    assert run.returns[1] == pytest.approx(-0.5 * 0.0015)
    assert run.turnover == [0.5, 0.5]
    assert run.exposure == [0.5, 0.0]
    assert run.costs == [pytest.approx(0.00075), pytest.approx(0.00075)]


def test_a_buy_into_a_limit_up_open_is_not_filled() -> None:
    series = {
        "600000.SH": bars("600000.SH", [100, 110, 115, 120]),  # opens limit-up (+10 %): no fill
        "300001.SZ": bars("300001.SZ", [100, 110, 115, 120]),  # ChiNext, ±20 %: filled
        "AAPL": bars("AAPL", [100, 110, 115, 120]),  # no limit
    }
    rule = fixed({day(0): {"600000.SH": 1 / 3, "300001.SZ": 1 / 3, "AAPL": 1 / 3}})
    run = simulate([Period(day(0), day(2))], list(series), series, rule, budget=1.0, cost=0.0)
    assert run.exposure == [pytest.approx(2 / 3)]
    assert run.returns == [pytest.approx(2 / 3 * (120 / 110 - 1))]


def test_a_sale_into_a_limit_down_open_keeps_the_weight_and_the_budget_holds() -> None:
    series = {
        "600000.SH": bars("600000.SH", [100, 100, 100, 90, 90, 90]),  # day 3 opens limit-down: cannot be sold
        "600001.SH": bars("600001.SH", [100] * 6),
        "600002.SH": bars("600002.SH", [100] * 6),
    }
    rule = fixed({day(0): {"600000.SH": 0.5, "600001.SH": 0.5}, day(2): {"600002.SH": 1.0}})
    run = simulate(rebalance_periods([day(0), day(2)], day(5)), list(series), series, rule, budget=1.0, cost=0.0)
    assert run.exposure == [pytest.approx(1.0), pytest.approx(1.0)]
    # 600000 stays at 0.5 (stuck), 600001 is sold, 600002 gets what room is left: 0.5, not 1.0
    assert run.turnover[1] == pytest.approx(0.5 + 0.5)


def test_the_gross_exposure_never_exceeds_the_budget() -> None:
    rng = random.Random(35)
    symbols = [f"60{i:04d}.SH" for i in range(12)]
    series = {}
    for symbol in symbols:
        prices = [100.0]
        for _ in range(120):  # some days gap to a limit either way
            move = rng.choice([0.1, -0.1, 0.0, 0.01, -0.01, 0.02])
            prices.append(prices[-1] * (1 + move))
        series[symbol] = bars(symbol, prices)
    grid = [day(i) for i in range(0, 120, 5)]
    targets = {}
    for when in grid:
        chosen = rng.sample(symbols, rng.randint(0, len(symbols)))
        targets[when] = {s: rng.uniform(-1, 1) * 3 for s in chosen}  # asks for far more than the budget
    for budget in (0.3, 1.0):
        capped = {when: _capped(t, budget) for when, t in targets.items()}
        run = simulate(rebalance_periods(grid, day(120)), symbols, series, fixed(capped), budget=budget, cost=0.003)
        assert max(run.exposure) <= budget + 1e-9
        assert max(run.exposure) > 0


def _capped(targets: dict[str, float], budget: float) -> dict[str, float]:
    gross = sum(abs(w) for w in targets.values())
    return {s: w * budget / gross for s, w in targets.items()} if gross > budget else targets


def record(symbol: str, action: str, position: float, view: float | None = None) -> ResearchRecord:
    return ResearchRecord(
        "policy", symbol, day(10), "ok", as_of=day(10), action=action, position_percent=position, market_exposure=view
    )


def test_verdict_exposure_is_the_sum_of_positions_capped_at_the_budget() -> None:
    series = {s: bars(s, [100] * 20) for s in ("A", "B", "C")}
    small = [record("A", "BUY", 10.0), record("B", "BUY", 15.0), record("C", "HOLD", 0.0)]
    large = [record("A", "BUY", 80.0), record("B", "BUY", 70.0), record("C", "SELL", 50.0)]
    options = {"allow_short": False, "weighting": "equal", "budget": 1.0}
    low = verdict_targets(small, "policy", series, exposure="verdict", **options)(day(10))  # type: ignore[arg-type]
    assert low == {"A": pytest.approx(0.125), "B": pytest.approx(0.125)}
    high = verdict_targets(large, "policy", series, exposure="verdict", **options)(day(10))  # type: ignore[arg-type]
    assert sum(high.values()) == pytest.approx(1.0)  # 150 % asked, the budget given
    constant = verdict_targets(small, "policy", series, exposure="constant", **options)(day(10))  # type: ignore[arg-type]
    assert constant == {"A": pytest.approx(0.5), "B": pytest.approx(0.5)}


def test_inverse_volatility_gives_the_calmer_stock_more() -> None:
    calm = bars("A", [100 * (1.001 if i % 2 else 0.999) for i in range(80)])
    wild = bars("B", [100 * (1.02 if i % 2 else 0.98) for i in range(80)])
    weights = split_gross({"A": 1, "B": 1}, 0.8, day(79), {"A": calm, "B": wild}, "inverse-vol")
    assert sum(weights.values()) == pytest.approx(0.8)
    assert weights["A"] > 5 * weights["B"]
    assert split_gross({"A": 1, "B": -1}, 0.8, day(79), {"A": calm, "B": wild}, "equal") == {"A": 0.4, "B": -0.4}


def test_market_exposure_sets_the_gross_and_only_the_gross() -> None:
    series = {s: bars(s, [100] * 20) for s in ("A", "B", "C")}
    options = {"allow_short": False, "weighting": "equal", "budget": 1.0, "exposure": "market"}
    cautious = [record("A", "BUY", 10.0, 0.6), record("B", "BUY", 15.0, 0.6), record("C", "HOLD", 0.0, 0.6)]
    eager = [record("A", "BUY", 10.0, 1.0), record("B", "BUY", 15.0, 1.0), record("C", "HOLD", 0.0, 1.0)]
    low = verdict_targets(cautious, "policy", series, **options)(day(10))  # type: ignore[arg-type]
    high = verdict_targets(eager, "policy", series, **options)(day(10))  # type: ignore[arg-type]
    assert low == {"A": pytest.approx(0.3), "B": pytest.approx(0.3)}
    assert high == {"A": pytest.approx(0.5), "B": pytest.approx(0.5)}
    silent = [record("A", "BUY", 10.0), record("B", "HOLD", 0.0)]  # no market view stated: the whole budget
    assert verdict_targets(silent, "policy", series, **options)(day(10)) == {"A": pytest.approx(1.0)}  # type: ignore[arg-type]
