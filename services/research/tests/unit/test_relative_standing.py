"""Issue 35: relative evidence — factor percentiles in a reference universe on the analysis day, the fixed
composite, one cross-section per day, point in time."""

from __future__ import annotations

import math
from datetime import date

import pytest
from research_fakes import FakeMarketDataProvider, make_bars

from research.application.point_in_time_data import PointInTimeData
from research.application.services.technical_analyst_service import TechnicalAnalystService
from research.application.universe_standing import UniverseStanding
from research.domain.analysis.relative import COMPOSITE, TOTAL_WEIGHT, composite, percentile_in, technical_factors
from research.domain.model.symbol import Symbol
from research.infrastructure.rules.technical_analyst import RulesTechnicalAnalystAgent
from shared_contracts.standing import standing_side

START = date(2024, 1, 1)
DAY = date(2024, 12, 31)


def trending(rate: float, n: int = 300, wobble: float = 0.0) -> list[float]:
    """Closes compounding at ``rate`` a day, with an alternating ``wobble`` (volatility)."""
    return [100.0 * (1 + rate) ** i * (1 + (wobble if i % 2 else -wobble)) for i in range(n)]


def universe(count: int = 10) -> dict[str, tuple]:
    """Stocks that differ in their last month's return and their volatility, step by step."""
    return {
        f"60000{i}.SH" if i < 10 else f"6000{i}.SH": make_bars(
            trending(0.0005 * (i - count / 2), wobble=0.002 * (i + 1))
        )
        for i in range(count)
    }


def test_percentile_is_the_mid_rank_share_below() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile_in(0.5, values) == 0.0
    assert percentile_in(2.0, values) == pytest.approx(0.375)  # one below, one equal
    assert percentile_in(9.0, values) == 1.0
    assert percentile_in(1.0, []) == 0.5


def test_the_registered_weights_sum_to_one_and_the_composite_stays_in_range() -> None:
    assert pytest.approx(1.0) == TOTAL_WEIGHT
    best = {s.name: (1.0 if s.bullish_when == "high" else 0.0) for s in COMPOSITE}
    worst = {s.name: 1.0 - p for s, p in zip(COMPOSITE, best.values(), strict=True)}
    top, bottom = composite(best), composite(worst)
    assert top is not None
    assert bottom is not None
    assert top.score == pytest.approx(1.0)
    assert bottom.score == pytest.approx(-1.0)
    assert top.coverage == pytest.approx(1.0)


def test_the_composite_covers_only_the_factors_with_data() -> None:
    only_reversal = composite({"return_1m": 0.0})  # the month's worst performer: reversal is bullish
    assert only_reversal is not None
    assert only_reversal.score == pytest.approx(1.0)
    assert only_reversal.coverage == pytest.approx(0.25)
    assert only_reversal.factors_used == ("return_1m",)
    assert composite({"return_3m": 0.9}) is None  # a factor reported, not scored


def test_technical_factors_are_those_of_the_last_bar() -> None:
    closes = trending(0.01, n=300)
    factors = technical_factors(make_bars(closes))
    assert factors["return_1m"] == pytest.approx(closes[-1] / closes[-21] - 1, rel=1e-4)
    assert factors["return_1w"] == pytest.approx(closes[-1] / closes[-6] - 1, rel=1e-4)
    assert factors["momentum_12_1"] == pytest.approx(closes[-21] / closes[-251] - 1, rel=1e-4)
    assert factors["volatility_60d"] == pytest.approx(0.0, abs=1e-6)  # a constant log return
    assert factors["abnormal_turnover"] == pytest.approx(1.0)
    assert factors["liquidity"] == pytest.approx(math.log(sum(closes[-20:]) / 20 * 1_000_000), rel=1e-6)


async def test_the_cross_section_is_computed_once_per_day_and_only_from_public_bars() -> None:
    provider = FakeMarketDataProvider(bars=universe())
    standing = UniverseStanding(PointInTimeData(provider), None, "fake symbols")
    first = await standing.cross_section(DAY)
    assert await standing.cross_section(DAY) is first
    assert len(first.factors) == 10
    earlier = await standing.cross_section(date(2024, 6, 28))
    assert earlier is not first
    # the earlier day's factors are what the bars up to that day give, not the later bars
    bars = provider.bars["600001.SH"]
    public = [b for b in bars if b.date <= date(2024, 6, 28)]
    assert earlier.factors["600001.SH"].items() >= technical_factors(public).items()


async def test_ranks_spread_over_the_universe_and_the_sides_stay_within_a_fifth_each() -> None:
    provider = FakeMarketDataProvider(bars=universe(20))
    standing = UniverseStanding(PointInTimeData(provider), None, "fake symbols")
    sides = []
    for name in provider.bars:
        found = await standing.standing(Symbol.parse(name), DAY, "technical")
        assert found is not None
        assert found.composite is not None
        assert found.universe_size == 20
        rank = found.composite.universe_rank
        assert rank is not None
        sides.append(standing_side(found.composite.score, rank, found.composite.coverage)[0])
    assert sides.count("BULLISH") <= 0.6 * len(sides)
    assert sides.count("BEARISH") <= 0.6 * len(sides)
    assert 0 < sides.count("BULLISH") <= 5
    assert 0 < sides.count("BEARISH") <= 5


async def test_a_stock_outside_the_universe_is_placed_against_it() -> None:
    bars = universe()
    outsider = make_bars(trending(-0.01, wobble=0.0))  # the steepest fall: the strongest reversal candidate
    provider = FakeMarketDataProvider(bars={**bars, "000001.SZ": outsider})
    standing = UniverseStanding(PointInTimeData(provider), list(bars), "configured list")
    found = await standing.standing(Symbol.parse("000001.SZ"), DAY, "technical")
    assert found is not None
    assert found.composite is not None
    assert found.universe_size == 10
    assert found.factors["return_1m"].percentile == 0.0
    assert found.factors["return_1m"].weight == 0.25


async def test_the_technical_analyst_states_its_relative_standing() -> None:
    provider = FakeMarketDataProvider(bars=universe())
    data = PointInTimeData(provider)
    service = TechnicalAnalystService(
        data, RulesTechnicalAnalystAgent("en"), standing=UniverseStanding(data, None, "fake symbols")
    )
    result = await service.run("600003.SH", DAY)
    standing = result["relative_standing"]
    assert standing["as_of"] == DAY.isoformat()
    assert set(standing["factors"]) == {s.name for s in COMPOSITE if s.family == "technical"}
    assert standing["coverage"] == 1.0
    assert -1.0 <= standing["composite"]["score"] <= 1.0
    assert 0.0 <= standing["composite"]["universe_rank"] <= 1.0
    without = await TechnicalAnalystService(data, RulesTechnicalAnalystAgent("en")).run("600003.SH", DAY)
    assert without.get("relative_standing") is None


async def test_on_the_snapshot_no_day_gives_more_than_60_percent_one_side() -> None:
    from research.infrastructure.data.snapshot_provider import DEFAULT_SNAPSHOT_DIR, OfflineSnapshotProvider

    standing = UniverseStanding(PointInTimeData(OfflineSnapshotProvider(DEFAULT_SNAPSHOT_DIR)), None, "snapshot")
    for day in (date(2020, 6, 30), date(2021, 12, 31), date(2023, 3, 31), date(2024, 9, 30)):
        section = await standing.cross_section(day)
        sides = []
        for name in section.factors:
            found = await standing.standing(Symbol.parse(name), day, "technical")
            assert found is not None
            assert found.composite is not None
            c = found.composite
            sides.append(standing_side(c.score, c.universe_rank, c.coverage)[0])
        assert len(sides) >= 100, day
        for side in ("BULLISH", "BEARISH"):
            assert sides.count(side) <= 0.6 * len(sides), (day, side)
            assert sides.count(side) <= 0.21 * len(sides), (day, side)  # a fifth, ties aside
