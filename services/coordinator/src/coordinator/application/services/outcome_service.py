"""Stored verdicts scored on the bars known now: one session's outcome, and the live scorecard over many.

Outcomes are computed when read, never stored: the bars are the research service's now (a later data source,
a revised series, the method of docs/evaluation.md) and a pending outcome must move on by itself. Each request
fetches a symbol's bars once, from ``LOOKBACK_DAYS`` before its earliest entry day (the entry is the last close on
or before that day; the liquidity benchmark reads the 20 bars up to it) to the last bar known.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from coordinator.application.dtos.scorecard import ScorecardQuery
from coordinator.domain.exceptions import GatewayError, PeerResponseError
from coordinator.domain.model.outcome import (
    SessionOutcome,
    StoredVerdict,
    forward_of,
    not_scorable,
    score_verdict,
    unavailable,
)
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.coordinator import Scorecard, ScorecardFilters
from shared_contracts.scoring import DailyBar
from verdict_statistics.benchmarks import (
    RankedCell,
    liquidity_benchmark,
    log_traded_value,
    size_neutral_ic,
    too_few_months,
)
from verdict_statistics.scorecard import ACTIONS, ScoredCall, action_outcomes, calibration_section, ic_section

MAX_SCORECARD_SESSIONS = 5000
"""The scorecard scores at most this many sessions, the newest; it says when more matched."""
BARS_CONCURRENCY = 8
"""Bars requests to the research service in flight at once."""
LOOKBACK_DAYS = 45
"""Bars are asked for from this many days before the earliest entry day: the entry is the last close on or
before it (a weekend, a holiday week), and the liquidity benchmark's 20 bars of traded value end there (20
trading days and the longest exchange holiday fit in 45 calendar days)."""


@dataclass(frozen=True)
class _Series:
    """A symbol's bars, or why there are none: ``missing`` (research has no bars for it) or ``unavailable``."""

    bars: list[DailyBar]
    missing: str | None = None
    unavailable: str | None = None


class SessionOutcomeService:
    def __init__(
        self, sessions: ISessionRepository, bars: IPriceBarsGateway, *, max_sessions: int = MAX_SCORECARD_SESSIONS
    ) -> None:
        self._sessions = sessions
        self._bars = bars
        self._max_sessions = max_sessions

    async def outcome_of(self, session: ResearchSession) -> SessionOutcome | None:
        """None for a session without a verdict; ``unavailable`` when the bars cannot be had now."""
        stored = StoredVerdict.of(session)
        if stored is None:
            return None
        series = await self._series(stored.symbol, stored.entry_day)
        return _outcome(stored, series)

    async def scorecard(self, query: ScorecardQuery) -> Scorecard:
        verdicts, matching = await self._sessions.list_verdicts(query, limit=self._max_sessions)
        series = await self._all_series(verdicts)
        outcomes = [_outcome(v, series[v.symbol]) for v in verdicts]
        calls = [
            ScoredCall(v.action or "", v.confidence, o.trade)
            for v, o in zip(verdicts, outcomes, strict=True)
            if o.trade is not None
        ]
        statuses: Counter[str] = Counter(o.status for o in outcomes)
        actions: Counter[str | None] = Counter(v.action for v in verdicts)
        last_days = [s.bars[-1].day for s in series.values() if s.bars]
        cells = _ranked(verdicts, series)
        liquidity = liquidity_benchmark(cells)
        too_few = too_few_months(liquidity)
        return Scorecard(
            filters=ScorecardFilters(symbol=query.symbol, engine=query.engine, start=query.start, end=query.end),
            sessions=len(verdicts),
            scored=statuses["scored"],
            pending=statuses["pending"],
            not_scorable=statuses["not_scorable"],
            no_fill=statuses["no_fill"],
            unavailable=statuses["unavailable"],
            actions={action: actions[action] for action in ACTIONS},
            per_action={action: action_outcomes(calls, action) for action in ACTIONS},
            calibration=calibration_section(calls),
            ic=ic_section([(c.month, c.score, c.forward) for c in cells]),
            benchmarks=None if too_few else {"liquidity": liquidity},
            ic_size_neutral=None if too_few else size_neutral_ic(cells),
            benchmarks_reason=too_few,
            as_of=max(last_days) if last_days else None,
            matching=matching,
            limit=self._max_sessions,
            truncated=matching > len(verdicts),
            unavailable_symbols={s: v.unavailable for s, v in sorted(series.items()) if v.unavailable is not None},
        )

    async def _all_series(self, verdicts: Iterable[StoredVerdict]) -> dict[str, _Series]:
        """Each symbol's bars, fetched once, from before its earliest entry day."""
        earliest: dict[str, date] = {}
        for verdict in verdicts:
            day = verdict.entry_day
            earliest[verdict.symbol] = min(day, earliest.get(verdict.symbol, day))
        limit = asyncio.Semaphore(BARS_CONCURRENCY)

        async def one(symbol: str, day: date) -> _Series:
            async with limit:
                return await self._series(symbol, day)

        fetched = await asyncio.gather(*(one(symbol, day) for symbol, day in earliest.items()))
        return dict(zip(earliest, fetched, strict=True))

    async def _series(self, symbol: str, entry_day: date) -> _Series:
        start = entry_day - timedelta(days=LOOKBACK_DAYS) if entry_day > date.min + timedelta(LOOKBACK_DAYS) else None
        try:
            return _Series(await self._bars.bars(symbol, start=start))
        except GatewayError as exc:  # a 404: research has no bars for the symbol
            missing = isinstance(exc, PeerResponseError) and exc.status == 404
            return _Series([], missing=str(exc)) if missing else _Series([], unavailable=str(exc))


def _ranked(verdicts: Iterable[StoredVerdict], series: dict[str, _Series]) -> list[RankedCell]:
    """(month, score, 20-day forward return, log traded value of the 20 bars up to the entry day) of one session
    per symbol and research day (the first listed: the newest) whose score is known and whose 20 days have
    passed."""
    seen: set[tuple[str, date]] = set()
    ranked = []
    for verdict in verdicts:
        key = (verdict.symbol, verdict.research_day)
        if key in seen:
            continue
        seen.add(key)
        score, bars = verdict.score, series[verdict.symbol].bars
        forward = forward_of(verdict, bars) if score is not None and bars else None
        if score is not None and forward is not None:
            liquidity = log_traded_value(bars, verdict.entry_day)
            ranked.append(RankedCell(verdict.research_day.isoformat()[:7], score, forward.value, liquidity))
    return ranked


def _outcome(stored: StoredVerdict, series: _Series) -> SessionOutcome:
    if series.unavailable is not None:
        return unavailable(stored, f"the bars could not be fetched: {series.unavailable}")
    if series.missing is not None:
        return not_scorable(stored, f"no bars for {stored.symbol}: {series.missing}")
    return score_verdict(stored, series.bars)
