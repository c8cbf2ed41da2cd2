"""Stored verdicts scored on the bars known now: one session's outcome, and the live scorecard over many.

Outcomes are computed when read, never stored: the bars are the research service's now (a later data source,
a revised series, the method of docs/evaluation.md) and a pending outcome must move on by itself. Each request
fetches a symbol's bars once, from a month before its earliest entry day (the entry is the last close on or
before that day) to the last bar known.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from coordinator.domain.exceptions import (
    GatewayError,
    InvalidSymbolError,
    PeerResponseError,
    ScorecardDateError,
    ScorecardDateRangeError,
    ScorecardEngineError,
)
from coordinator.domain.model.outcome import (
    SessionOutcome,
    StoredVerdict,
    not_scorable,
    score_verdict,
    unavailable,
)
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.session_repository import ISessionRepository, VerdictFilter
from shared_contracts.experts import is_iso_date
from shared_contracts.scorecard import ACTIONS, Json, ScoredCall, action_outcomes, calibration_section
from shared_contracts.scoring import DailyBar
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol

MAX_SCORECARD_SESSIONS = 5000
"""The scorecard scores at most this many sessions, the newest; it says when more matched."""
BARS_CONCURRENCY = 8
"""Bars requests to the research service in flight at once."""
LOOKBACK_DAYS = 31
"""Bars are asked for from this many days before the earliest entry day: the entry is the last close on or
before it (a weekend, a holiday week)."""
MAX_ENGINE_LENGTH = 128
ENGINE_FILTER_PATTERN = rf"^\s*(?:[!-~][ -~]{{0,{MAX_ENGINE_LENGTH - 1}}})?\s*$"
"""``ScorecardQuery.parse``'s engine as a JSON Schema pattern: blank, or printable ASCII of at most
``MAX_ENGINE_LENGTH`` characters once the blanks around it are dropped."""
OUTCOME_STATUSES = ("scored", "pending", "not_scorable", "unavailable")


@dataclass(frozen=True)
class ScorecardQuery:
    symbol: str | None = None
    engine: str | None = None
    start: date | None = None
    end: date | None = None
    client_id: str | None = None
    """Only this client's sessions (None: every client's, for an ``admin``)."""

    @classmethod
    def parse(
        cls,
        *,
        symbol: str | None = None,
        engine: str | None = None,
        start: str | None = None,
        end: str | None = None,
        client_id: str | None = None,
    ) -> ScorecardQuery:
        """The filters as given on the query string, validated; blank is no filter. Raises a
        ``ScorecardQueryError`` (400) naming the bad one."""
        wanted = None
        if symbol is not None and symbol.strip():
            try:
                wanted = normalize_symbol(symbol)
            except SymbolSyntaxError as exc:
                raise InvalidSymbolError(f"symbol: {exc}") from None
        named = engine.strip() if engine is not None and engine.strip() else None
        if named is not None and (len(named) > MAX_ENGINE_LENGTH or not (named.isascii() and named.isprintable())):
            limit = f"printable ASCII, at most {MAX_ENGINE_LENGTH} characters"
            raise ScorecardEngineError(f"engine must be 'rules' or an LLM model name ({limit})")
        first, last = _day("start", start), _day("end", end)
        if first is not None and last is not None and first > last:
            raise ScorecardDateRangeError(f"start {first.isoformat()} is after end {last.isoformat()}")
        return cls(wanted, named, first, last, client_id)

    @property
    def filter(self) -> VerdictFilter:
        return VerdictFilter(
            symbol=self.symbol, engine=self.engine, start=self.start, end=self.end, client_id=self.client_id
        )


def _day(name: str, value: str | None) -> date | None:
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not is_iso_date(text):
        raise ScorecardDateError(f"{name} must be a YYYY-MM-DD day (got {text[:40]!r})")
    return date.fromisoformat(text)


@dataclass(frozen=True)
class Scorecard:
    """The scorecard's figures: ``per_action`` and ``calibration`` are the evaluation report's sections
    (``shared_contracts.scorecard``) over the sessions' outcomes."""

    query: ScorecardQuery
    sessions: int
    statuses: Mapping[str, int]
    actions: Mapping[str, int]
    per_action: Mapping[str, Json]
    calibration: Json
    as_of: date | None
    matching: int
    limit: int
    unavailable_symbols: Mapping[str, str] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return self.matching > self.sessions


@dataclass(frozen=True)
class _Series:
    """A symbol's bars, or why there are none: ``missing`` (research has no bars for it) or ``unavailable``."""

    bars: list[DailyBar]
    missing: str | None = None
    unavailable: str | None = None


class SessionOutcomeService:
    def __init__(
        self,
        sessions: ISessionRepository,
        bars: IPriceBarsGateway,
        *,
        max_sessions: int = MAX_SCORECARD_SESSIONS,
        concurrency: int = BARS_CONCURRENCY,
    ) -> None:
        self._sessions = sessions
        self._bars = bars
        self._max_sessions = max_sessions
        self._concurrency = concurrency

    async def outcome_of(self, session: ResearchSession) -> SessionOutcome | None:
        """None for a session without a verdict; ``unavailable`` when the bars cannot be had now."""
        stored = StoredVerdict.of(session)
        if stored is None:
            return None
        series = await self._series(stored.symbol, stored.entry_day)
        return _outcome(stored, series)

    async def scorecard(self, query: ScorecardQuery) -> Scorecard:
        verdicts, matching = await self._sessions.list_verdicts(query.filter, limit=self._max_sessions)
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
        return Scorecard(
            query=query,
            sessions=len(verdicts),
            statuses={status: statuses[status] for status in OUTCOME_STATUSES},
            actions={action: actions[action] for action in ACTIONS},
            per_action={action: action_outcomes(calls, action) for action in ACTIONS},
            calibration=calibration_section(calls),
            as_of=max(last_days) if last_days else None,
            matching=matching,
            limit=self._max_sessions,
            unavailable_symbols={s: v.unavailable for s, v in sorted(series.items()) if v.unavailable is not None},
        )

    async def _all_series(self, verdicts: Iterable[StoredVerdict]) -> dict[str, _Series]:
        """Each symbol's bars, fetched once, from before its earliest entry day."""
        earliest: dict[str, date] = {}
        for verdict in verdicts:
            day = verdict.entry_day
            earliest[verdict.symbol] = min(day, earliest.get(verdict.symbol, day))
        limit = asyncio.Semaphore(self._concurrency)

        async def one(symbol: str, day: date) -> _Series:
            async with limit:
                return await self._series(symbol, day)

        fetched = await asyncio.gather(*(one(symbol, day) for symbol, day in earliest.items()))
        return dict(zip(earliest, fetched, strict=True))

    async def _series(self, symbol: str, entry_day: date) -> _Series:
        start = entry_day - timedelta(days=LOOKBACK_DAYS) if entry_day > date.min + timedelta(LOOKBACK_DAYS) else None
        try:
            return _Series(await self._bars.bars(symbol, start=start))
        except PeerResponseError as exc:
            if exc.status == 404:
                return _Series([], missing=str(exc))
            return _Series([], unavailable=str(exc))
        except GatewayError as exc:
            return _Series([], unavailable=str(exc))


def _outcome(stored: StoredVerdict, series: _Series) -> SessionOutcome:
    if series.unavailable is not None:
        return unavailable(stored, f"the bars could not be fetched: {series.unavailable}")
    if series.missing is not None:
        return not_scorable(stored, f"no bars for {stored.symbol}: {series.missing}")
    return score_verdict(stored, series.bars)
