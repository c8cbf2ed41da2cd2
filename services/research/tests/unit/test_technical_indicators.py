"""Technical indicators against hand-checked figures (synthetic series and the 600519.SH snapshot)."""

from __future__ import annotations

import math
from datetime import date

import pytest
from research_fakes import make_bars

from research.domain.analysis.technical import MIN_BARS, compute_technical_facts
from research.domain.model.market_data import Bar, PriceHistory
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from shared_contracts.errors import InsufficientHistoryError

SYMBOL = Symbol.parse("600519.SH")


def history(bars: tuple[Bar, ...]) -> PriceHistory:
    return PriceHistory(symbol=SYMBOL, bars=bars, source="test")


def test_linear_trend_gives_known_sma_and_macd() -> None:
    # closes 1..100: SMA5 of 96..100 = 98; MACD DIF of a unit-slope line = EMA lag difference (26-12)/2 = 7
    facts = compute_technical_facts(history(make_bars([float(i) for i in range(1, 101)])), None)
    assert facts.ma5 == 98.0
    assert facts.ma20 == pytest.approx(90.5)
    assert facts.ma60 == pytest.approx(70.5)
    assert facts.macd_dif == pytest.approx(7.0, abs=1e-3)
    assert facts.macd_hist == pytest.approx(0.0, abs=1e-3)
    assert facts.rsi14 == 100.0  # no down day at all
    assert facts.ma120 is None  # only 100 bars


def test_rsi_wilder_steady_state_for_alternating_moves() -> None:
    # closes 10, 11, 10, 11 ... ending on an up day. Wilder smoothing (α = 1/14) settles at
    # avg gain 14/27 and avg loss 13/27 after an up day, so RSI → 100 · 14/27 = 51.85
    closes = [10.0 + (i % 2) for i in range(MIN_BARS)]
    facts = compute_technical_facts(history(make_bars(closes)), None)
    assert facts.rsi14 == pytest.approx(100 * 14 / 27, abs=0.1)


def test_bollinger_bands_of_1_to_20_use_population_sigma() -> None:
    # last 20 closes 1..20 after 40 flat bars: mean 10.5, population σ = sqrt(399/12) = 5.76628
    closes = [1.0] * 40 + [float(i) for i in range(1, 21)]
    facts = compute_technical_facts(history(make_bars(closes)), None)
    sigma = math.sqrt(399 / 12)
    assert facts.boll_middle == pytest.approx(10.5)
    assert facts.boll_upper == pytest.approx(10.5 + 2 * sigma, abs=1e-3)
    assert facts.boll_lower == pytest.approx(10.5 - 2 * sigma, abs=1e-3)
    assert facts.boll_percent_b == pytest.approx((20 - (10.5 - 2 * sigma)) / (4 * sigma), abs=1e-3)


def test_atr_of_constant_two_point_range_is_two() -> None:
    facts = compute_technical_facts(history(make_bars([50.0] * MIN_BARS, spread=1.0)), None)
    assert facts.atr14 == pytest.approx(2.0)
    assert facts.atr_pct == pytest.approx(4.0)
    assert facts.levels.atr_stop == pytest.approx(46.0)
    assert facts.boll_percent_b is None  # zero-width band: %b undefined, not a number


def test_volume_ratio_is_day_volume_over_previous_five() -> None:
    volumes = [100.0] * (MIN_BARS - 1) + [300.0]
    facts = compute_technical_facts(history(make_bars([10.0] * MIN_BARS, volumes=volumes)), None)
    assert facts.volume_ratio == 3.0


async def test_real_600519_figures_on_2025_09_30(snapshot: OfflineSnapshotProvider) -> None:
    # closes 09-24..09-30: 1442.00, 1439.00, 1435.00, 1460.86, 1443.99 → MA5 = 7220.85 / 5 = 1444.17
    # volume 3,936,362 over the mean of the 5 days before (20,208,097 / 5) = 0.97396
    facts = compute_technical_facts(await snapshot.get_price_history(SYMBOL), date(2025, 9, 30))
    assert facts.as_of == date(2025, 9, 30)
    assert facts.close == 1443.99
    assert facts.ma5 == pytest.approx(1444.17, abs=1e-4)
    assert facts.change_1d_pct == pytest.approx(-1.1548, abs=1e-3)
    assert facts.volume_ratio == pytest.approx(0.97396, abs=1e-4)
    assert facts.window_52w_bars == 250
    assert all(s < facts.close for s in facts.levels.support)
    assert all(r > facts.close for r in facts.levels.resistance)


async def test_analysis_date_selects_last_trading_day_on_or_before(snapshot: OfflineSnapshotProvider) -> None:
    bars = await snapshot.get_price_history(SYMBOL)
    sunday = compute_technical_facts(bars, date(2025, 9, 28))
    assert sunday.as_of == date(2025, 9, 26)  # Friday
    assert sunday.close == 1435.0
    assert compute_technical_facts(bars, date(2025, 9, 29)).as_of == date(2025, 9, 29)


async def test_too_little_history_is_an_error_not_a_guess(snapshot: OfflineSnapshotProvider) -> None:
    bars = await snapshot.get_price_history(SYMBOL)
    with pytest.raises(InsufficientHistoryError, match="at least 60"):
        compute_technical_facts(bars, date(2022, 3, 1))  # about 35 trading days since 2022-01-04
    with pytest.raises(InsufficientHistoryError):
        compute_technical_facts(bars, date(2021, 6, 1))  # before the first bar
