"""Catalyst event detection and the rules engines' common scoring arithmetic."""

from __future__ import annotations

import random
from datetime import date

import pytest
from research_fakes import make_bars

from research.domain.analysis.catalyst import detect_financial_events, detect_price_events, prior_extremes
from research.domain.analysis.financial import compute_financial_facts
from research.domain.model.market_data import AnnualFinancials, Bar, FinancialStatements
from research.domain.model.symbol import Symbol
from research.infrastructure.rules.scoring import Scorecard


def test_gap_up_volume_spike_and_new_high_are_detected() -> None:
    bars = list(make_bars([100.0] * 80, spread=1.0))
    last = bars[-1]
    # day 81: opens and trades entirely above the previous high (101) by more than 2 %, on 3x volume
    bars.append(Bar(date=date(2024, 4, 22), open=106, high=107, low=105, close=106.5, volume=3_000_000))
    events = detect_price_events(bars)
    kinds = {(e.kind, e.polarity) for e in events}
    assert ("price_gap", 1) in kinds
    assert ("volume_spike", 1) in kinds
    assert ("52w_high", 1) in kinds
    gap = next(e for e in events if e.kind == "price_gap")
    assert gap.figures["gap_pct"] == pytest.approx((105 / last.high - 1) * 100, abs=0.01)
    spike = next(e for e in events if e.kind == "volume_spike")
    assert spike.figures["volume_multiple"] == 3.0


def test_quiet_tape_has_no_events() -> None:
    assert detect_price_events(make_bars([100.0] * 120)) == []


def test_gap_down_and_new_low_are_negative() -> None:
    bars = list(make_bars([100.0] * 80, spread=1.0))
    bars.append(Bar(date=date(2024, 4, 22), open=94, high=95, low=93, close=93.5, volume=1_000_000))
    kinds = {(e.kind, e.polarity) for e in detect_price_events(bars)}
    assert kinds == {("price_gap", -1), ("52w_low", -1)}


def _statements(*rows: tuple[int, float, float | None]) -> FinancialStatements:
    periods = tuple(
        AnnualFinancials(period_end=date(year, 12, 31), net_profit_parent=1.0, net_profit_parent_yoy_pct=yoy, dps=dps)
        for year, yoy, dps in rows
    )
    return FinancialStatements(symbol=Symbol.parse("600519.SH"), periods=periods, source="test")


def test_earnings_turnaround_and_dividend_cut() -> None:
    facts = compute_financial_facts(_statements((2023, -12.0, 2.0), (2024, 8.0, 1.5)))
    events = {e.kind: e for e in detect_financial_events(facts)}
    assert events["earnings_inflection"].polarity == 1
    assert events["earnings_inflection"].figures["swing_pts"] == 20.0
    assert events["dividend_change"].polarity == -1
    assert events["dividend_change"].figures["change_pct"] == -25.0


def test_small_changes_are_not_events() -> None:
    facts = compute_financial_facts(_statements((2023, 10.0, 2.0), (2024, 15.0, 2.05)))
    assert detect_financial_events(facts) == []


def test_scorecard_formula() -> None:
    card = Scorecard()
    card.add("a", 1, {}, "", "")
    card.add("b", 1, {}, "", "")
    card.add("c", -1, {}, "", "", weight=0.5)
    card.add("d", None, {}, "", "")  # no data
    # s = (1 + 1 - 0.5) / 2.5 = 0.6; coverage = 2.5 / 3.5; confidence = 0.35 + 0.55 · 0.6 · 0.7143 = 0.59
    assert card.normalized == pytest.approx(0.6)
    assert card.coverage == pytest.approx(2.5 / 3.5)
    assert card.direction == 1
    assert card.confidence == 0.59
    thin = Scorecard()
    thin.add("a", 1, {}, "", "")
    thin.add("b", None, {}, "", "")
    thin.add("c", None, {}, "", "")
    assert thin.normalized == 1.0
    assert thin.direction == 0  # coverage 1/3 < 0.5: no call on so little data
    empty = Scorecard()
    empty.add("x", None, {}, "", "")
    assert (empty.normalized, empty.direction, empty.confidence) == (0.0, 0, 0.35)


def test_prior_extremes_match_a_max_and_min_over_each_window() -> None:
    rng = random.Random(7)
    for n in (1, 2, 61, 120, 250, 251, 400):
        highs = [rng.uniform(90, 110) for _ in range(n)]
        lows = [h - rng.uniform(0, 5) for h in highs]
        for ties in (False, True):
            if ties:
                highs = [round(h) for h in highs]
                lows = [round(x) for x in lows]
            start = max(1, n - 60)
            got = prior_extremes(highs, lows, start, 250)
            for i in range(start, n):
                first = max(0, i - 250)
                assert got[i] == (max(highs[first:i]), min(lows[first:i])), (n, i)
