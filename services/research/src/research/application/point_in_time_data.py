"""Market data as it was public on an analysis day: any provider's data, filtered by the availability rules.

Every expert reads its data through ``PointInTimeData`` (offline snapshot and live providers alike), so no
expert can see a bar, report, valuation snapshot, macro release or news item later than its analysis date.

Example::

    data = PointInTimeData(provider)
    statements = await data.financials(Symbol.parse("600519.SH"), 5, on=date(2025, 4, 29))
    statements.statements.periods[-1].period_end  # 2023-12-31: FY2024 is public from 2025-04-30
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from research.domain import availability as rules
from research.domain.model.market_data import (
    Bar,
    FinancialStatements,
    MacroData,
    MacroObservation,
    MacroSeries,
    NewsItem,
    PriceHistory,
    ValuationData,
)
from research.domain.model.symbol import Market, Symbol
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.errors import InsufficientHistoryError

ALL_PERIODS = 100
"""Asked of a provider so that the periods public on the day can be chosen here (providers return the latest)."""


@dataclass(frozen=True)
class DatedStatements:
    statements: FinancialStatements
    """Only the periods public on the day, the latest ``limit`` of them, oldest first."""
    available_from: tuple[date, ...]
    """The day each period became public, in the same order."""

    def provenance(self) -> dict[str, str]:
        latest = self.statements.periods[-1]
        return {"period_end": latest.period_end.isoformat(), "available_from": self.available_from[-1].isoformat()}


def report_available_from(symbol: Symbol, period_end: date, published_on: date | None) -> date:
    return rules.annual_report_available_from(
        period_end, a_share=symbol.market.is_a_share, hk=symbol.market is Market.HK, published_on=published_on
    )


def public_macro(data: MacroData, on: date) -> MacroData:
    """Each series cut to the observations released on or before ``on``; series with none are dropped.

    Observations are oldest first and a series' release day never goes back as its observation day goes
    forward, so the released ones are a prefix, found by bisection."""
    series: dict[str, MacroSeries] = {}
    for name, s in data.series.items():
        released = s.observations[: bisect_right(s.observations, on, key=_release_of(name, s.frequency))]
        if released:
            series[name] = replace(s, observations=released)
    return replace(data, series=series)


def _release_of(name: str, frequency: str) -> Callable[[MacroObservation], date]:
    return lambda observation: rules.macro_release(name, frequency, observation.date)


def _bar_day(bar: Bar) -> date:
    return rules.bar_available_from(bar.date)


def _not_yet(message: str, first_is: str, first: date | None) -> InsufficientHistoryError:
    """Nothing public on the day; ``first``: the day something is (``earliest_usable_date``), when the data has one."""
    return InsufficientHistoryError(f"{message}; {first_is} {first.isoformat()}" if first else message, first)


class PointInTimeData:
    def __init__(self, provider: IMarketDataProvider) -> None:
        self.provider = provider

    @property
    def name(self) -> str:
        return self.provider.name

    async def price_history(self, symbol: Symbol, on: date) -> PriceHistory:
        """Bars up to and including ``on``; ``InsufficientHistoryError`` when none was public yet."""
        history = await self.provider.get_price_history(symbol, end=None)
        public = history.bars[: bisect_right(history.bars, on, key=_bar_day)]  # bars are oldest first
        if not public:
            first = history.bars[0].date if history.bars else None
            raise _not_yet(f"{symbol}: no daily bar on or before {on.isoformat()}", "the first is", first)
        return replace(history, bars=public)

    async def full_price_history(self, symbol: Symbol) -> PriceHistory:
        """Every bar the provider has: only for saying when an analysis becomes possible, never for analysing."""
        return await self.provider.get_price_history(symbol, end=None)

    async def financials(self, symbol: Symbol, limit: int, on: date) -> DatedStatements:
        """The latest ``limit`` annual reports public on ``on``; ``InsufficientHistoryError`` when none was."""
        statements = await self.provider.get_financials(symbol, ALL_PERIODS)
        dated = [(p, report_available_from(symbol, p.period_end, p.published_on)) for p in statements.periods]
        public = [(p, day) for p, day in dated if day <= on][-limit:]
        if not public:
            first = min((day for _, day in dated), default=None)
            message = f"{symbol}: no annual report was public on {on.isoformat()}"
            raise _not_yet(message, "the first becomes public on", first)
        return DatedStatements(
            statements=replace(statements, periods=tuple(p for p, _ in public)),
            available_from=tuple(day for _, day in public),
        )

    async def valuation(self, symbol: Symbol, on: date) -> ValuationData:
        """Snapshots taken on or before ``on`` and the history up to it (either may end up empty)."""
        data = await self.provider.get_valuation(symbol)
        return replace(
            data,
            snapshots=tuple(s for s in data.snapshots if rules.snapshot_available_from(s.as_of) <= on),
            history=tuple(p for p in data.history if p.date <= on),
        )

    async def earliest_valuation(self, symbol: Symbol) -> date | None:
        data = await self.provider.get_valuation(symbol)
        days = [rules.snapshot_available_from(s.as_of) for s in data.snapshots] + [p.date for p in data.history]
        return min(days, default=None)

    async def macro(self, symbol: Symbol, on: date) -> MacroData:
        """Each series as released by ``on``; ``InsufficientHistoryError`` when nothing was released yet."""
        data = await self.provider.get_macro(symbol)
        public = public_macro(data, on)
        if not public.series:
            releases = [
                rules.macro_release(n, s.frequency, s.observations[0].date)
                for n, s in data.series.items()
                if s.observations
            ]
            message = f"no {data.region} macro figure was released by {on.isoformat()}"
            raise _not_yet(message, "the first is released on", min(releases, default=None))
        return public

    async def news(self, symbol: Symbol, limit: int, on: date) -> list[NewsItem]:
        items = await self.provider.get_news(symbol, limit)
        return [n for n in items if rules.news_available_from(n.published_at) <= on]
