"""Where a stock stands against its reference universe on an analysis day: one cross-section per day, cached.

The cross-section reads every universe symbol's data public on the day (``PointInTimeData``), computes the
factors of ``domain.analysis.relative``, their percentiles and the composite score of each symbol with its
rank. A stock outside the universe is placed against the universe's values. Offline the universe is the
snapshot's symbols (whatever ``SNAPSHOT_DIR`` holds); live, ``REFERENCE_UNIVERSE``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date

from research.application.point_in_time_data import PointInTimeData
from research.domain.analysis.relative import (
    COMPOSITE,
    SPECS,
    Family,
    composite,
    family_parts,
    fundamental_factors,
    percentile_in,
    technical_factors,
)
from research.domain.analysis.technical import MIN_BARS
from research.domain.exceptions import DataProviderError
from research.domain.model.symbol import Symbol
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError, SymbolNotFoundError
from shared_contracts.standing import (
    FAMILY_EXPERTS,
    CompositeStanding,
    FactorStanding,
    FamilyStanding,
    RelativeStanding,
)

FINANCIAL_PERIODS = 2
CACHED_DAYS = 512
Factors = dict[str, float | None]
_SKIPPED = (DataUnavailableError, InsufficientHistoryError, SymbolNotFoundError, DataProviderError)


@dataclass(frozen=True)
class CrossSection:
    on: date
    factors: dict[str, Factors]
    """Each universe symbol with data on the day → its factors."""
    values: dict[str, list[float]]
    """Each factor → the universe's values (symbols with data only)."""
    scores: list[float]
    """The universe's composite scores."""


class UniverseStanding:
    def __init__(self, data: PointInTimeData, symbols: list[str] | None, label: str) -> None:
        """``symbols``: the reference universe; None: the provider's symbols (the offline snapshot's)."""
        self._data = data
        self._symbols = symbols
        self._label = label
        self._cache: OrderedDict[date, CrossSection] = OrderedDict()
        self._locks: dict[date, asyncio.Lock] = {}

    async def _factors(self, symbol: Symbol, on: date) -> Factors | None:
        """The symbol's factors on ``on``; None without the bars an analysis needs."""
        try:
            history = await self._data.price_history(symbol, on)
        except _SKIPPED:
            return None
        if len(history.bars) < MIN_BARS:
            return None
        factors = technical_factors(history.bars)
        try:
            periods = (await self._data.financials(symbol, FINANCIAL_PERIODS, on)).statements.periods
        except _SKIPPED:
            periods = ()
        factors.update(fundamental_factors(history.bars[-1].close, periods))
        return factors

    async def cross_section(self, on: date) -> CrossSection:
        """The universe on ``on``, computed once per day (concurrent callers wait for the first); the
        ``CACHED_DAYS`` days used last are kept."""
        if (cached := self._cache.get(on)) is not None:
            self._cache.move_to_end(on)
            return cached
        lock = self._locks.setdefault(on, asyncio.Lock())
        async with lock:
            if (cached := self._cache.get(on)) is not None:
                return cached
            if self._symbols is None:
                self._symbols = await self._data.provider.available_symbols() or []
            rows: dict[str, Factors] = {}
            for name in self._symbols:
                factors = await self._factors(Symbol.parse(name), on)
                if factors is not None:
                    rows[name] = factors
            values = {s.name: sorted(v for r in rows.values() if (v := r[s.name]) is not None) for s in COMPOSITE}
            scores = [c.score for r in rows.values() if (c := composite(_percentiles(r, values))) is not None]
            section = CrossSection(on, rows, values, sorted(scores))
            self._cache[on] = section
            while len(self._cache) > CACHED_DAYS:
                self._cache.popitem(last=False)
            self._locks.pop(on, None)
            return section

    async def standing(self, symbol: Symbol, on: date, family: Family) -> RelativeStanding | None:
        """``family``'s factors of ``symbol`` against the universe on ``on``, and the composite; None when the
        symbol has no bars to place it with."""
        section = await self.cross_section(on)
        if not section.factors:
            return None
        factors = section.factors.get(str(symbol)) or await self._factors(symbol, on)
        if factors is None:
            return None
        percentiles = _percentiles(factors, section.values)
        mine = [s for s in COMPOSITE if s.family == family]
        standing = {
            s.name: FactorStanding(
                value=factors[s.name],
                percentile=percentiles[s.name],
                bullish_when=s.bullish_when,
                weight=s.weight,
                universe_with_data=len(section.values[s.name]),
                description=s.description,
            )
            for s in mine
        }
        with_data = sum(1 for s in mine if factors[s.name] is not None)
        total = composite(percentiles)
        return RelativeStanding(
            universe=f"{self._label} ({len(self._symbols or ())} symbols)",
            universe_size=len(section.factors),
            as_of=on.isoformat(),
            factors=standing,
            coverage=round(with_data / len(mine), 4) if mine else 0.0,
            composite=None
            if total is None
            else CompositeStanding(
                score=total.score,
                universe_rank=percentile_in(total.score, section.scores) if section.scores else None,
                coverage=total.coverage,
                factors_used=list(total.factors_used),
                universe_scored=len(section.scores),
                families=_families(percentiles, section.scores),
            ),
        )


def _families(percentiles: dict[str, float | None], scores: list[float]) -> list[FamilyStanding]:
    """The composite's parts by family, each family's score placed among the universe's composite scores."""
    return [
        FamilyStanding(
            family=part.family,
            expert=FAMILY_EXPERTS[part.family],
            score=part.score,
            percentile=None if part.score is None or not scores else percentile_in(part.score, scores),
            weight=part.weight,
            contribution=part.contribution,
        )
        for part in family_parts(percentiles)
    ]


def _percentiles(factors: Factors, values: dict[str, list[float]]) -> dict[str, float | None]:
    return {
        name: None if (v := factors[name]) is None or not values[name] else percentile_in(v, values[name])
        for name in SPECS
    }
