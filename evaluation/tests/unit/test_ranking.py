"""The headline figures on synthetic bars: the forward return entered at the next open, the monthly IC (months
as the unit, at least 10 stocks), the quintile spread net of costs with no fill at limit opens, and BUY against
the other verdicts over the same days; the score beside −log 20-day traded value (the same cells, paired by month,
size-neutral), which never reads a bar after the entry day."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest

from evaluation.bar_series import BarSeries
from evaluation.markdown import render_markdown
from evaluation.ranking import (
    buy_against_rest,
    fallback_dates,
    information_coefficient,
    quintile_spread,
    ranked_cells,
    ranked_verdicts,
)
from evaluation.records import ResearchRecord
from evaluation.report import ReportOptions, build_report
from shared_contracts.scoring import DailyBar
from verdict_statistics.benchmarks import liquidity_benchmark, log_traded_value, size_neutral_ic

D0 = date(2024, 1, 31)
SYMBOLS = [f"6000{i:02d}.SH" for i in range(12)]


def path(final: float, first_open: float = 100.0, start: date = D0) -> list[DailyBar]:
    """The signal day (close 100), then 20 days: the first opens at ``first_open``, the last closes at ``final``."""
    rows = [DailyBar(start, 100, 100, 100, 100), DailyBar(start + timedelta(1), first_open, 101, 99, 100)]
    rows += [DailyBar(start + timedelta(i), 100, 101, 99, 100) for i in range(2, 20)]
    return [*rows, DailyBar(start + timedelta(20), 100, 101, 99, final)]


def record(symbol: str, score: float | None, action: str = "HOLD", **fields: Any) -> ResearchRecord:
    return ResearchRecord("policy", symbol, D0, "ok", as_of=D0, action=action, score=score, **fields)


def universe(finals: list[float], opens: list[float] | None = None) -> dict[str, BarSeries]:
    opens = opens or [100.0] * len(finals)
    return {s: BarSeries(path(f, o), s) for s, f, o in zip(SYMBOLS, finals, opens, strict=True)}


def test_the_forward_return_enters_at_the_next_open() -> None:
    series = universe([110.0] * 12, [105.0] + [100.0] * 11)
    ranked = ranked_verdicts([record(SYMBOLS[0], 0.5)], series)
    assert len(ranked) == 1
    assert ranked[0].forward.entry_day == D0 + timedelta(1)
    assert ranked[0].forward.value == pytest.approx(110 / 105 - 1)
    pending = {SYMBOLS[0]: BarSeries(path(110.0)[:15], SYMBOLS[0])}
    assert ranked_verdicts([record(SYMBOLS[0], 0.5)], pending) == []  # 20 days have not passed


def test_the_ic_of_a_score_that_orders_the_returns() -> None:
    series = universe([100.0 + i for i in range(12)])
    ranked = ranked_verdicts([record(s, i / 12) for i, s in enumerate(SYMBOLS)], series)
    section = information_coefficient(ranked)
    assert section["months"] == [{"month": D0.isoformat(), "n": 12, "ic": 1.0}]
    assert section["mean"]["n"] == 1
    reverse = ranked_verdicts([record(s, -i / 12) for i, s in enumerate(SYMBOLS)], series)
    assert information_coefficient(reverse)["months"][0]["ic"] == -1.0
    too_few = ranked_verdicts([record(s, i / 12) for i, s in enumerate(SYMBOLS[:9])], series)
    assert information_coefficient(too_few)["months"][0]["ic"] is None  # 9 < 10 stocks


def test_without_a_score_the_debate_is_signed() -> None:
    series = universe([100.0 + i for i in range(12)])
    debated = [
        record(s, None, direction="BEARISH" if i < 6 else "BULLISH", debate_confidence=abs(i - 5.5) / 10)
        for i, s in enumerate(SYMBOLS)
    ]
    section = information_coefficient(ranked_verdicts(debated, series))
    assert section["months"][0]["ic"] == pytest.approx(1.0)


def test_verdicts_the_fallback_would_rank_are_left_out_when_the_policy_has_scores() -> None:
    """Issue 52: the IC of a policy with a score is the score's; a policy without any score (the previous one)
    keeps its fallback ranking."""
    series = universe([100.0 + i for i in range(12)])
    mixed = [record(s, i / 12) for i, s in enumerate(SYMBOLS[:11])]
    mixed.append(record(SYMBOLS[11], None, direction="NEUTRAL", debate_confidence=0.3))
    assert fallback_dates(mixed) == [D0.isoformat()]
    assert [r.record.symbol for r in ranked_verdicts(mixed, series)] == SYMBOLS[:11]
    scored = [record(s, i / 12) for i, s in enumerate(SYMBOLS)]
    assert fallback_dates(scored) == []
    assert len(ranked_verdicts(scored, series)) == 12
    previous = [record(s, None, direction="NEUTRAL", debate_confidence=0.3) for s in SYMBOLS]
    assert fallback_dates(previous) == []
    assert len(ranked_verdicts(previous, series)) == 12


def test_the_quintile_spread_is_net_of_costs_and_skips_limit_opens() -> None:
    finals = [100.0 + 2 * i for i in range(12)]
    series = universe(finals)
    ranked = ranked_verdicts([record(s, float(i)) for i, s in enumerate(SYMBOLS)], series)
    spread = quintile_spread(ranked, cost=0.003)
    top, bottom = (0.18 + 0.20 + 0.22) / 3, (0.0 + 0.02 + 0.04) / 3  # ranks 10-12 and 1-3 of 12
    assert spread["top"]["value"] == pytest.approx(top)
    assert spread["bottom"]["value"] == pytest.approx(bottom)
    assert spread["spread_net"]["value"] == pytest.approx(top - bottom - 0.006)
    assert spread["top_net_minus_all"]["value"] == pytest.approx(top - 0.003 - sum(f / 100 - 1 for f in finals) / 12)
    limited = universe(finals, [100.0] * 11 + [110.0])  # the best-scored stock opens limit-up: not bought
    ranked = ranked_verdicts([record(s, float(i)) for i, s in enumerate(SYMBOLS)], limited)
    assert quintile_spread(ranked, cost=0.0)["top"]["value"] == pytest.approx((0.18 + 0.20) / 2)


def test_buy_against_the_other_verdicts_over_the_same_days() -> None:
    series = universe([100.0 + i for i in range(12)])
    records = [record(s, 0.0, "BUY" if i % 2 else "HOLD") for i, s in enumerate(SYMBOLS)]
    like = buy_against_rest(ranked_verdicts(records, series), cost=0.003)
    buys = [i / 100 - 0.003 for i in range(1, 12, 2)]
    rest = [i / 100 for i in range(0, 12, 2)]
    assert like["buy"]["value"] == pytest.approx(sum(buys) / 6)
    assert like["rest"]["value"] == pytest.approx(sum(rest) / 6)
    assert like["difference_per_date"]["value"] == pytest.approx(0.01 - 0.003)
    assert like["buy_no_fill"] == 0


# --- beside a size/liquidity tilt ---------------------------------------------------------------------------

DATES = [D0, D0 + timedelta(40)]


def liquid(volume: float, finals: list[float]) -> list[DailyBar]:
    """A month of history before D0, then to 20 days after the last of ``DATES``: every day opens and closes at 100
    with ``volume`` traded, but the 20th day after each date, which closes at its ``finals`` entry."""
    first, last = D0 - timedelta(30), DATES[-1] + timedelta(21)
    exits = {signal + timedelta(20): final for signal, final in zip(DATES, finals, strict=True)}
    days = [first + timedelta(k) for k in range((last - first).days)]
    return [DailyBar(d, 100.0, 101.0, 99.0, exits.get(d, 100.0), volume) for d in days]


def liquid_universe(finals: list[list[float]]) -> dict[str, BarSeries]:
    """Stock i trades 1000 × (i + 1)² shares a day (the later in SYMBOLS, the more liquid)."""
    pairs = enumerate(zip(SYMBOLS, finals, strict=True))
    return {s: BarSeries(liquid(1000.0 * (i + 1) ** 2, f), s) for i, (s, f) in pairs}


def noise(seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[100.0 + rng.uniform(-10.0, 10.0) for _ in DATES] for _ in SYMBOLS]


def dated(series: dict[str, BarSeries], score: Callable[[int, str, date], float]) -> list[ResearchRecord]:
    return [
        ResearchRecord("policy", s, on, "ok", as_of=on, action="HOLD", score=score(i, s, on))
        for on in DATES
        for i, s in enumerate(SYMBOLS)
    ]


def test_a_score_that_is_minus_the_liquidity_is_not_told_from_the_tilt() -> None:
    series = liquid_universe(noise(5))

    def minus_liquidity(_: int, symbol: str, on: date) -> float:
        value = log_traded_value(series[symbol].bars, on)
        assert value is not None
        return -value

    cells = ranked_cells(ranked_verdicts(dated(series, minus_liquidity), series), series)
    assert len(cells) == 24
    benchmark = liquidity_benchmark(cells)
    assert benchmark["paired_difference"] == {"value": 0.0, "low": 0.0, "high": 0.0, "n": 2}
    assert benchmark["score_mean"] == benchmark["mean"]
    assert size_neutral_ic(cells)["mean"]["value"] == pytest.approx(0.0, abs=1e-9)
    assert size_neutral_ic(cells)["mean"]["n"] == 2

    report = build_report(
        dated(series, minus_liquidity),
        {s: b.bars for s, b in series.items()},
        ReportOptions(D0, DATES[-1], DATES[-1], "month-end", ("technical_analyst",), "rules"),
    )
    assert report["benchmarks"]["policy"]["whole"]["liquidity"]["paired_difference"]["value"] == 0.0
    assert report["ic_size_neutral"]["policy"]["whole"]["mean"]["value"] == pytest.approx(0.0, abs=1e-9)
    assert "the score is not distinguishable from a size/liquidity tilt" in render_markdown(report).lower()


def test_when_liquidity_drives_the_returns_its_ic_is_high_and_a_noise_score_is_not() -> None:
    finals = [[100.0 - 0.3 * (i + 1) for _ in DATES] for i in range(len(SYMBOLS))]  # the less liquid, the better
    series = liquid_universe(finals)
    rng = random.Random(11)
    cells = ranked_cells(ranked_verdicts(dated(series, lambda *_: rng.uniform(-1, 1)), series), series)
    benchmark = liquidity_benchmark(cells)
    assert [m["ic"] for m in benchmark["months"]] == [1.0, 1.0]
    assert benchmark["mean"]["value"] == 1.0
    assert benchmark["score_mean"]["value"] < 0.7
    assert benchmark["paired_difference"]["value"] < 0


def test_the_liquidity_of_a_verdict_never_reads_a_bar_after_its_entry_day() -> None:
    series = liquid_universe(noise(5))
    records = dated(series, lambda i, *_: i / 12)
    before = ranked_cells(ranked_verdicts(records, series), series)
    cut = DATES[0]
    changed = {
        s: BarSeries([replace(b, close=b.close * 3, volume=7.0) if b.day > cut else b for b in bs.bars], s)
        for s, bs in series.items()
    }
    after = ranked_cells(ranked_verdicts(records, changed), changed)
    first = [c.log_liquidity for c in before if c.month == cut.isoformat()]
    assert first == [c.log_liquidity for c in after if c.month == cut.isoformat()]
    assert first[0] is not None
    second = [c.log_liquidity for c in before if c.month == DATES[1].isoformat()]
    assert second != [c.log_liquidity for c in after if c.month == DATES[1].isoformat()]  # those bars are its past
