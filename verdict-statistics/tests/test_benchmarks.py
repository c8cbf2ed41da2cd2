"""The score beside a size/liquidity tilt: the log traded value up to the entry day (never past it), the liquidity
factor's monthly IC on the score's cells, their difference paired by month, and the size-neutral IC."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import date, timedelta

import pytest

from shared_contracts.scoring import DailyBar
from verdict_statistics.benchmarks import (
    RankedCell,
    liquidity_benchmark,
    log_traded_value,
    size_neutral_ic,
    too_few_months,
)

D0 = date(2024, 1, 1)
MONTHS = [f"2024-{m:02d}" for m in range(1, 7)]


def bars(volumes: list[float | None], close: float = 10.0) -> list[DailyBar]:
    return [DailyBar(D0 + timedelta(days=i), close, close, close, close, v) for i, v in enumerate(volumes)]


def test_the_log_traded_value_is_the_mean_of_the_20_bars_up_to_the_day() -> None:
    series = bars([float(i) for i in range(1, 41)])
    day = series[29].day  # bars 10..29 (volumes 11..30): mean 20.5 × close 10
    assert log_traded_value(series, day) == pytest.approx(math.log(205.0))
    gap = [b for b in series if b.day != day]  # no bar on the day: the 20 up to the last one before it
    assert log_traded_value(gap, day) == pytest.approx(math.log(195.0))
    assert log_traded_value(series, series[18].day) is None  # 19 bars only
    assert log_traded_value(bars([1.0] * 19 + [None] + [1.0] * 5), D0 + timedelta(days=24)) is None  # a gap
    assert log_traded_value(bars([0.0] * 20), D0 + timedelta(days=19)) is None  # nothing traded


def test_bars_after_the_entry_day_do_not_change_the_liquidity() -> None:
    series = bars([100.0 + i for i in range(40)])
    day = series[25].day
    before = log_traded_value(series, day)
    later = [replace(b, close=b.close * 50, volume=1e9) if b.day > day else b for b in series]
    assert log_traded_value(later, day) == before
    assert log_traded_value(series[:26], day) == before  # as if the later bars did not exist yet
    on_the_day = [replace(b, volume=1e9) if b.day == day else b for b in series]
    assert log_traded_value(on_the_day, day) != before  # the entry day's own bar counts


def cells(score: str, forward: str, seed: int = 7, per_month: int = 30) -> list[RankedCell]:
    """``per_month`` stocks in each of six months with a random log liquidity; the score and the forward return
    each either ``-liquidity``, ``noise`` or ``liquidity`` plus a little noise."""
    rng = random.Random(seed)
    out = []
    for month in MONTHS:
        for _ in range(per_month):
            liquidity = rng.uniform(15.0, 25.0)
            made = {"-liquidity": -liquidity, "noise": rng.gauss(0.0, 1.0)}
            made["liquidity-driven"] = -0.01 * liquidity + rng.gauss(0.0, 0.01)
            out.append(RankedCell(month, made[score], made[forward], liquidity))
    return out


def test_a_score_that_is_minus_liquidity_is_the_tilt_itself() -> None:
    ranked = cells("-liquidity", "noise")
    section = liquidity_benchmark(ranked)
    assert section["paired_difference"] == {"value": 0.0, "low": 0.0, "high": 0.0, "n": 6}
    assert section["score_mean"] == section["mean"]
    assert "not distinguishable from a size/liquidity tilt" in section["statement"]
    neutral = size_neutral_ic(ranked)
    assert neutral["mean"]["n"] == 6
    assert neutral["mean"]["value"] == pytest.approx(0.0, abs=1e-12)
    assert too_few_months(section) is None


def test_when_liquidity_drives_the_returns_its_ic_is_high_and_a_noise_score_trails_it() -> None:
    ranked = cells("noise", "liquidity-driven")
    section = liquidity_benchmark(ranked)
    assert section["mean"]["value"] > 0.8
    assert section["mean"]["low"] > 0.5
    assert section["observations"] == 180
    assert section["without_liquidity"] == 0
    assert abs(section["score_mean"]["value"]) < 0.2
    assert section["paired_difference"]["high"] < 0
    assert "worse than a size/liquidity tilt" in section["statement"]
    assert abs(size_neutral_ic(ranked)["mean"]["value"]) < 0.2


def test_a_score_with_more_than_liquidity_in_it_keeps_a_size_neutral_ic() -> None:
    rng = random.Random(3)
    ranked = []
    for month in MONTHS:
        for _ in range(40):
            liquidity, skill = rng.uniform(15.0, 25.0), rng.gauss(0.0, 1.0)
            ranked.append(RankedCell(month, skill - 0.5 * liquidity, skill + rng.gauss(0.0, 0.3), liquidity))
    assert size_neutral_ic(ranked)["mean"]["low"] > 0.7  # the liquidity part regressed out, the skill ranks
    assert liquidity_benchmark(ranked)["paired_difference"]["low"] > 0


def test_cells_without_a_liquidity_are_left_out_of_both_ics_and_counted() -> None:
    ranked = cells("noise", "liquidity-driven")
    holed = [replace(c, log_liquidity=None) if i % 10 == 0 else c for i, c in enumerate(ranked)]
    section = liquidity_benchmark(holed)
    assert (section["observations"], section["without_liquidity"]) == (162, 18)
    assert [m["n"] for m in section["months"]] == [27] * 6


def test_with_one_month_there_is_no_interval_and_the_reason_says_so() -> None:
    ranked = [c for c in cells("noise", "liquidity-driven") if c.month == MONTHS[0]]
    section = liquidity_benchmark(ranked)
    assert section["paired_difference"]["n"] == 1
    assert section["statement"] == "Too few months to tell the score from a size/liquidity tilt."
    reason = too_few_months(section)
    assert reason is not None
    assert reason.startswith("too few months: 1 month(s)")
    empty = liquidity_benchmark([])
    assert empty["mean"]["value"] is None
    assert too_few_months(empty) is not None
    assert size_neutral_ic([])["mean"] == {"value": None, "low": None, "high": None, "n": 0}
