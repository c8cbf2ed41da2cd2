"""A session's outcome (the entry day, scored / pending / not_scorable / unavailable) and the scorecard's
figures (the IC beside a size/liquidity tilt too), with fakes for the store and the research service's bars."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from coordinator_fakes import FakeBarsGateway, InMemorySessionRepository
from outcome_fakes import LLM_ENGINE, TA, flat_bars, judged_session, touched
from scipy import stats

from coordinator.application.dtos.scorecard import ScorecardQuery
from coordinator.application.services.outcome_service import LOOKBACK_DAYS, SessionOutcomeService
from coordinator.domain.exceptions import (
    PeerResponseError,
    PeerTimeoutError,
    PeerUnavailableError,
)
from coordinator.domain.model.outcome import StoredVerdict
from coordinator.domain.model.session import ResearchSession, StageOutcome
from shared_contracts.errors import InvalidRequestError
from shared_contracts.scoring import DailyBar, score_trade
from verdict_statistics.benchmarks import log_traded_value
from verdict_statistics.scorecard import ScoredCall, action_outcomes, calibration_section

SYMBOL = "600519.SH"
FRIDAY = date(2025, 6, 27)
MONDAY = date(2025, 6, 30)


def service(bars: FakeBarsGateway, sessions: InMemorySessionRepository | None = None) -> SessionOutcomeService:
    return SessionOutcomeService(sessions or InMemorySessionRepository(), bars)


# --- the entry day ---------------------------------------------------------------------------------


def test_the_entry_day_is_the_technical_analysts_as_of_when_it_succeeded() -> None:
    stored = StoredVerdict.of(judged_session(as_of=FRIDAY, analysis_date=date(2025, 6, 29)))
    assert stored is not None
    assert (stored.entry_day, stored.research_day) == (FRIDAY, date(2025, 6, 29))


def test_without_the_technical_analyst_the_entry_day_is_the_analysis_date() -> None:
    stored = StoredVerdict.of(judged_session(analysis_date=MONDAY))
    assert stored is not None
    assert stored.technical_as_of is None
    assert stored.entry_day == MONDAY


def test_a_session_stored_without_an_analysis_date_uses_its_technical_option_else_the_day_it_was_created() -> None:
    with_option = StoredVerdict.of(judged_session(options={TA: {"analysis_date": "2024-06-28"}}))
    created = datetime(2025, 3, 4, 23, 0, tzinfo=UTC)
    without = StoredVerdict.of(replace(judged_session(), created_at=created))
    assert with_option is not None
    assert without is not None
    assert with_option.entry_day == date(2024, 6, 28)
    assert without.entry_day == date(2025, 3, 4)


def test_a_session_without_a_verdict_has_none_to_score() -> None:
    session = judged_session(as_of=FRIDAY)
    assert StoredVerdict.of(replace(session, judge=replace(session.judge, data=None))) is None
    assert StoredVerdict.of(replace(session, judge=replace(session.judge, status="failed"))) is None


async def test_a_session_without_a_verdict_has_no_outcome_and_fetches_no_bars() -> None:
    bars = FakeBarsGateway()
    assert await service(bars).outcome_of(replace(judged_session(as_of=FRIDAY), judge=StageOutcome("success"))) is None
    assert bars.calls == []


# --- scored, pending, not scorable, unavailable -------------------------------------------------------


async def test_a_buy_hit_by_its_target_is_scored_at_exactly_the_target_percent() -> None:
    series = touched(flat_bars(FRIDAY - timedelta(days=10), 40), 12, high=120.0)  # day 12: 4 days after entry
    bars = FakeBarsGateway({SYMBOL: series})

    outcome = await service(bars).outcome_of(judged_session(as_of=FRIDAY, analysis_date=FRIDAY, target=15.0))

    assert outcome is not None
    assert outcome.trade is not None
    # the signal is Friday's close, the entry Monday's open; the round trip costs 0.3 %
    assert (outcome.status, outcome.entry_day, outcome.trade.exit_reason) == ("scored", MONDAY, "target")
    assert outcome.trade.exit_day == series[12].day
    assert outcome.trade.call_return == pytest.approx(0.147, abs=1e-12)
    assert outcome.trade.realised_return == pytest.approx(0.147, abs=1e-12)
    assert outcome.trade.profitable is True
    assert outcome.final
    # asked once, from a month before the entry day, to the last bar known
    assert bars.calls == [(SYMBOL, FRIDAY - timedelta(days=LOOKBACK_DAYS), None)]


async def test_before_its_holding_period_has_passed_an_outcome_is_pending() -> None:
    bars = FakeBarsGateway({SYMBOL: flat_bars(FRIDAY, 11)})  # the entry and 10 of 20 days after it
    outcome = await service(bars).outcome_of(judged_session(as_of=FRIDAY, horizon="SHORT_TERM"))
    assert outcome is not None
    assert outcome.trade is not None
    assert outcome.status == "pending"
    assert outcome.reason == "10 of 20 trading days have passed"
    assert (outcome.trade.entry_day, outcome.trade.entry_price, outcome.trade.call_return) == (MONDAY, 100.0, None)
    assert not outcome.final


async def test_a_sell_is_scored_as_the_short_call_it_is_and_realised_flat() -> None:
    series = touched(flat_bars(FRIDAY, 30), 3, low=80.0)
    bars = FakeBarsGateway({SYMBOL: series})
    outcome = await service(bars).outcome_of(judged_session(as_of=FRIDAY, action="SELL", stop=8.0, target=-10.0))
    assert outcome is not None
    assert outcome.trade is not None
    assert (outcome.status, outcome.trade.exit_reason) == ("scored", "target")
    assert outcome.trade.call_return == pytest.approx(0.10 - 0.003)
    assert outcome.trade.realised_return == 0.0
    assert outcome.trade.underlying_return == pytest.approx(-0.10)


async def test_without_a_bar_on_or_before_the_entry_day_it_is_not_scorable() -> None:
    bars = FakeBarsGateway({SYMBOL: flat_bars(MONDAY, 30)})
    outcome = await service(bars).outcome_of(judged_session(as_of=FRIDAY))
    assert outcome is not None
    assert (outcome.status, outcome.entry_day) == ("not_scorable", FRIDAY)
    assert outcome.reason == "no bar on or before 2025-06-27"


async def test_a_verdict_without_its_levels_is_not_scorable() -> None:
    session = judged_session(as_of=FRIDAY)
    assert session.verdict is not None
    del session.verdict["stop_loss"]
    outcome = await service(FakeBarsGateway({SYMBOL: flat_bars(FRIDAY, 30)})).outcome_of(session)
    assert outcome is not None
    assert outcome.status == "not_scorable"
    assert "lacks" in outcome.reason


async def test_a_symbol_the_research_service_has_no_bars_for_is_not_scorable() -> None:
    missing = PeerResponseError("research", 404, "symbol_not_found", "600519.SH is not in the offline snapshot")
    outcome = await service(FakeBarsGateway(failures={SYMBOL: missing})).outcome_of(judged_session(as_of=FRIDAY))
    assert outcome is not None
    assert outcome.status == "not_scorable"
    assert "research 404 symbol_not_found" in outcome.reason


@pytest.mark.parametrize(
    "failure",
    [
        PeerUnavailableError(
            "research", "research unreachable: connection refused (ConnectionRefusedError) (3 attempts)"
        ),
        PeerTimeoutError("research", "research timed out after 15s (2 attempts)"),
        PeerResponseError("research", 503, "data_provider_unavailable", "akshare down"),
    ],
)
async def test_bars_that_cannot_be_had_now_make_the_outcome_unavailable(failure: Exception) -> None:
    outcome = await service(FakeBarsGateway(failures={SYMBOL: failure})).outcome_of(judged_session(as_of=FRIDAY))
    assert outcome is not None
    assert (outcome.status, outcome.trade, outcome.entry_day) == ("unavailable", None, FRIDAY)
    assert outcome.reason == f"the bars could not be fetched: {failure}"


# --- the scorecard ---------------------------------------------------------------------------------


async def _repository(*sessions: object) -> InMemorySessionRepository:
    repository = InMemorySessionRepository()
    for session in sessions:
        await repository.create(session)  # type: ignore[arg-type]
    return repository


async def test_the_scorecard_scores_each_research_once_with_one_bars_call_per_symbol() -> None:
    # 600519.SH: flat at 100 from 2025-06-20; up to 120 on 2025-07-02 (index 8), down to 91 on 2025-07-08 (12)
    series = touched(touched(flat_bars(date(2025, 6, 20), 60), 8, high=120.0), 12, low=91.0)
    later = series[10].day  # after the first trades had exited at their target
    won = judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1, confidence=0.8)
    lost = judged_session(as_of=later, analysis_date=later, minutes=2, confidence=0.6)
    held = judged_session("000001.SZ", as_of=FRIDAY, analysis_date=FRIDAY, minutes=3, action="HOLD")
    source = judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=4)
    retry = judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=5, retried_from=source.session_id)
    bars = FakeBarsGateway({SYMBOL: series, "000001.SZ": flat_bars(FRIDAY, 60)})
    repository = await _repository(won, lost, held, source, retry)

    card = await service(bars, repository).scorecard(ScorecardQuery())

    starts = {symbol: start for symbol, start, _ in bars.calls}
    assert len(bars.calls) == len(starts) == 2  # once per symbol, from a month before its earliest entry day
    assert starts == {SYMBOL: FRIDAY - timedelta(days=LOOKBACK_DAYS), "000001.SZ": FRIDAY - timedelta(LOOKBACK_DAYS)}
    assert (card.sessions, card.matching, card.truncated) == (4, 4, False)  # the retried source left out
    assert (card.scored, card.pending, card.not_scorable, card.unavailable) == (4, 0, 0, 0)
    assert card.actions == {"BUY": 3, "SELL": 0, "HOLD": 1}
    assert card.as_of == max(series[-1].day, flat_bars(FRIDAY, 60)[-1].day)
    # the report's own sections, over the same outcomes
    calls = []
    for session, entry in ((retry, FRIDAY), (lost, later), (won, FRIDAY)):
        assert session.verdict is not None
        trade = score_trade(
            series, entry_day=entry, action="BUY", time_horizon="SHORT_TERM", stop_percent=-8.0, take_profit_percent=15
        )
        calls.append(ScoredCall("BUY", session.verdict["confidence"], trade))
    assert card.per_action["BUY"] == action_outcomes(calls, "BUY")
    assert card.per_action["BUY"]["exits"] == {"stop": 1, "target": 2, "horizon": 0}
    assert card.calibration == calibration_section(calls)
    assert card.per_action["HOLD"]["count"] == 1


async def test_the_scorecard_counts_unavailable_bars_apart_and_names_the_symbol() -> None:
    ok = judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1)
    down = judged_session("000001.SZ", as_of=FRIDAY, analysis_date=FRIDAY, minutes=2)
    bars = FakeBarsGateway(
        {SYMBOL: flat_bars(FRIDAY, 5)},
        failures={"000001.SZ": PeerUnavailableError("research", "research unreachable (3 attempts)")},
    )
    card = await service(bars, await _repository(ok, down)).scorecard(ScorecardQuery())
    assert (card.scored, card.pending, card.not_scorable, card.unavailable) == (0, 1, 0, 1)
    assert card.per_action["BUY"]["count"] == 1  # the unavailable one is not an outcome
    assert card.unavailable_symbols == {"000001.SZ": "research unreachable (3 attempts)"}


async def test_the_scorecard_filters_and_says_when_it_is_truncated() -> None:
    sessions = [
        judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1),
        judged_session(as_of=MONDAY, analysis_date=MONDAY, minutes=2, engine=LLM_ENGINE),
        judged_session(as_of=MONDAY, analysis_date=MONDAY, minutes=3, engine=LLM_ENGINE),
        judged_session("000001.SZ", as_of=MONDAY, analysis_date=MONDAY, minutes=4),
    ]
    repository = await _repository(*sessions)
    bars = FakeBarsGateway({SYMBOL: flat_bars(FRIDAY, 30), "000001.SZ": flat_bars(FRIDAY, 30)})

    async def count(**filters: str) -> int:
        return (await service(bars, repository).scorecard(ScorecardQuery.parse(**filters))).sessions

    assert await count(symbol="600519.sh") == 3
    assert await count(engine="qwen-plus") == 2
    assert await count(engine="rules") == 2
    assert await count(start="2025-06-28") == 3
    assert await count(end="2025-06-27") == 1
    assert await count(symbol="600519.SH", engine="rules", start="2025-06-27", end="2025-06-27") == 1

    capped = await SessionOutcomeService(repository, bars, max_sessions=2).scorecard(ScorecardQuery())
    assert (capped.sessions, capped.matching, capped.limit, capped.truncated) == (2, 4, 2, True)


@pytest.mark.parametrize(
    ("filters", "code"),
    [
        ({"symbol": "not a symbol"}, "invalid_symbol"),
        ({"engine": "x" * 129}, "invalid_engine"),
        ({"engine": "qwen\x00"}, "invalid_engine"),
        ({"start": "2025-13-01"}, "invalid_date"),
        ({"end": "yesterday"}, "invalid_date"),
        ({"start": "2025-07-01", "end": "2025-06-30"}, "invalid_date_range"),
    ],
)
def test_bad_filters_are_named(filters: dict[str, str], code: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        ScorecardQuery.parse(**filters)
    assert caught.value.code == code


def test_blank_filters_are_no_filters_and_symbols_are_canonical() -> None:
    assert ScorecardQuery.parse(symbol=" ", engine="", start="", end=None) == ScorecardQuery()
    assert ScorecardQuery.parse(symbol="700.hk").symbol == "0700.HK"


# --- the scorecard's information coefficient ----------------------------------------------------------

A_SHARES = [f"6000{i:02d}.SH" for i in range(12)]


def ranked_session(symbol: str, day: date, minutes: int, score: float | None, **debate: Any) -> ResearchSession:
    session = judged_session(symbol, as_of=day, analysis_date=day, minutes=minutes)
    assert session.verdict is not None
    terms = {**session.verdict, "score": score} if score is not None else session.verdict
    debated = StageOutcome("success", data=debate or {"direction": "NEUTRAL", "confidence": 0.2})
    return replace(session, judge=StageOutcome("success", data=terms), debate=debated)


def rising(first: date, final: float) -> list[DailyBar]:
    """The signal close and 20 more bars at 100, the last closing at ``final``: a 20-day forward return of
    ``final / 100 - 1`` entered at the next open."""
    bars = flat_bars(first, 25)
    return [*bars[:20], replace(bars[20], close=final), *bars[21:]]


async def test_the_scorecard_ic_ranks_one_session_per_symbol_and_date_in_months_of_ten() -> None:
    july = date(2025, 7, 31)
    bars = {s: rising(FRIDAY, 100.0 + i)[:21] + rising(july, 100.0 - i) for i, s in enumerate(A_SHARES)}
    june = [ranked_session(s, FRIDAY, i, i / 12) for i, s in enumerate(A_SHARES)]
    older_duplicate = ranked_session(A_SHARES[11], FRIDAY, -1, -1.0)  # the same symbol and date: left out
    short_month = [ranked_session(s, july, 20 + i, i / 12) for i, s in enumerate(A_SHARES[:9])]
    repository = await _repository(*june, older_duplicate, *short_month)

    card = await service(FakeBarsGateway(bars), repository).scorecard(ScorecardQuery())

    assert card.sessions == 22  # every session is scored as a trade ...
    assert card.ic["months"] == [{"month": "2025-06", "n": 12, "ic": 1.0}, {"month": "2025-07", "n": 9, "ic": None}]
    assert card.ic["observations"] == 21  # ... but the IC counts one per symbol and date
    assert card.ic["mean"] == {"value": 1.0, "low": None, "high": None, "n": 1}  # 9 < 10 sessions in July
    assert card.ic["min_per_month"] == 10


async def test_the_scorecard_ic_ranks_the_signed_debate_when_the_verdict_has_no_score() -> None:
    bars = {s: rising(FRIDAY, 100.0 - i) for i, s in enumerate(A_SHARES)}
    sessions = [
        ranked_session(s, FRIDAY, i, None, direction="BEARISH" if i > 5 else "BULLISH", confidence=0.1 + i / 100)
        for i, s in enumerate(A_SHARES)
    ]
    card = await service(FakeBarsGateway(bars), await _repository(*sessions)).scorecard(ScorecardQuery())
    (june,) = card.ic["months"]
    signed = [(0.1 + i / 100) * (-1 if i > 5 else 1) for i in range(12)]
    expected = stats.spearmanr(signed, [-i for i in range(12)]).statistic
    assert june["n"] == 12
    assert june["ic"] == pytest.approx(expected, abs=1e-6)
    assert june["ic"] > 0  # BULLISH above BEARISH: the BEARISH stocks did fall more


# --- the scorecard beside a size/liquidity tilt ------------------------------------------------------------

JULY = date(2025, 7, 31)


def traded(volume: float, finals: dict[date, float]) -> list[DailyBar]:
    """Weekday bars from May to September at 100 with ``volume`` shares a day; the 20th bar after each signal day
    of ``finals`` closes at its value (a 20-day forward return of ``final / 100 - 1``)."""
    bars = [replace(bar, volume=volume) for bar in flat_bars(date(2025, 5, 1), 100)]
    for signal, final in finals.items():
        index = max(i for i, bar in enumerate(bars) if bar.day <= signal) + 20
        bars[index] = replace(bars[index], close=final)
    return bars


def universe_of(months: list[date], seed: int = 5) -> dict[str, list[DailyBar]]:
    """Stock i trades 1000 × (i + 1)² shares a day; its forward returns are noise."""
    rng = random.Random(seed)
    return {
        s: traded(1000.0 * (i + 1) ** 2, {m: 100.0 + rng.uniform(-10, 10) for m in months})
        for i, s in enumerate(A_SHARES)
    }


async def test_a_score_that_is_minus_liquidity_shows_as_the_tilt_it_is() -> None:
    bars = universe_of([FRIDAY, JULY])
    sessions = []
    for month, day in enumerate((FRIDAY, JULY)):
        for i, s in enumerate(A_SHARES):
            liquidity = log_traded_value(bars[s], day)
            assert liquidity is not None
            sessions.append(ranked_session(s, day, 20 * month + i, -liquidity))

    card = await service(FakeBarsGateway(bars), await _repository(*sessions)).scorecard(ScorecardQuery())

    assert card.benchmarks is not None
    assert card.ic_size_neutral is not None
    liquidity = card.benchmarks["liquidity"]
    assert liquidity["paired_difference"] == {"value": 0.0, "low": 0.0, "high": 0.0, "n": 2}
    assert liquidity["score_mean"] == card.ic["mean"]  # the same sessions: all have their 20 bars of volume
    assert (liquidity["observations"], liquidity["without_liquidity"]) == (24, 0)
    assert "not distinguishable from a size/liquidity tilt" in liquidity["statement"]
    assert card.ic_size_neutral["mean"]["value"] == pytest.approx(0.0, abs=1e-9)
    assert card.benchmarks_reason is None


async def test_with_too_few_months_the_benchmarks_are_null_and_say_why() -> None:
    bars = universe_of([FRIDAY])
    sessions = [ranked_session(s, FRIDAY, i, i / 12) for i, s in enumerate(A_SHARES)]
    card = await service(FakeBarsGateway(bars), await _repository(*sessions)).scorecard(ScorecardQuery())
    assert card.ic["mean"]["n"] == 1
    assert (card.benchmarks, card.ic_size_neutral) == (None, None)
    assert card.benchmarks_reason is not None
    assert card.benchmarks_reason.startswith("too few months: 1 month(s)")

    no_volume = {s: [replace(b, volume=None) for b in series] for s, series in universe_of([FRIDAY, JULY]).items()}
    both = [
        ranked_session(s, day, 20 * m + i, i / 12)
        for m, day in enumerate((FRIDAY, JULY))
        for i, s in enumerate(A_SHARES)
    ]
    card = await service(FakeBarsGateway(no_volume), await _repository(*both)).scorecard(ScorecardQuery())
    assert card.ic["mean"]["n"] == 2  # the score's own IC does not need volumes
    assert card.benchmarks is None
    assert card.benchmarks_reason is not None
    assert "24 without them" in card.benchmarks_reason
