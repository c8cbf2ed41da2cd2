"""The headline figures on synthetic bars: the forward return entered at the next open, the monthly IC (months
as the unit, at least 10 stocks), the quintile spread net of costs with no fill at limit opens, and BUY against
the other verdicts over the same days."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from evaluation.bar_series import BarSeries
from evaluation.ranking import buy_against_rest, information_coefficient, quintile_spread, ranked_verdicts
from evaluation.records import ResearchRecord
from shared_contracts.scoring import DailyBar

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
