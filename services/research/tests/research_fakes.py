"""Test doubles for the research service: an in-memory market data provider, synthetic bars, and an
OpenAI-compatible endpoint behind httpx2.MockTransport."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from contract_testkit import RecordingLLMEndpoint, chat_completion

from research.domain.model.market_data import (
    Bar,
    FinancialStatements,
    MacroData,
    NewsItem,
    PriceHistory,
    ValuationData,
)
from research.domain.model.symbol import Symbol
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.errors import DataUnavailableError, SymbolNotFoundError


def business_days(start: date, count: int) -> list[date]:
    days: list[date] = []
    day = start
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def make_bars(
    closes: Sequence[float],
    *,
    start: date = date(2024, 1, 1),
    spread: float = 1.0,
    volumes: Sequence[float] | None = None,
) -> tuple[Bar, ...]:
    """Bars whose high/low are close ± spread (open = close), on consecutive business days."""
    vols = volumes or [1_000_000.0] * len(closes)
    return tuple(
        Bar(date=d, open=c, high=c + spread, low=c - spread, close=c, volume=v)
        for d, c, v in zip(business_days(start, len(closes)), closes, vols, strict=True)
    )


class FakeMarketDataProvider(IMarketDataProvider):
    """In-memory provider: whatever the test puts in; unknown symbols and missing categories raise
    the same errors as the real providers."""

    name = "fake"

    def __init__(
        self,
        bars: dict[str, tuple[Bar, ...]] | None = None,
        financials: dict[str, FinancialStatements] | None = None,
        valuation: dict[str, ValuationData] | None = None,
        macro: MacroData | None = None,
        news: dict[str, list[NewsItem]] | None = None,
    ) -> None:
        self.bars = bars or {}
        self.financials = financials or {}
        self.valuation = valuation or {}
        self.macro = macro
        self.news = news or {}

    def _known(self, symbol: Symbol) -> str:
        key = str(symbol)
        if key not in set(self.bars) | set(self.financials) | set(self.valuation) | set(self.news):
            raise SymbolNotFoundError(f"{key} unknown to the fake")
        return key

    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        key = self._known(symbol)
        if key not in self.bars:
            raise DataUnavailableError(f"no bars for {key}")
        bars = tuple(b for b in self.bars[key] if end is None or b.date <= end)
        return PriceHistory(symbol=symbol, bars=bars, source="fake")

    async def get_financials(self, symbol: Symbol, limit: int) -> FinancialStatements:
        key = self._known(symbol)
        if key not in self.financials:
            raise DataUnavailableError(f"no financials for {key}")
        statements = self.financials[key]
        return FinancialStatements(symbol=symbol, periods=statements.periods[-limit:], source="fake")

    async def get_valuation(self, symbol: Symbol) -> ValuationData:
        key = self._known(symbol)
        if key not in self.valuation:
            raise DataUnavailableError(f"no valuation for {key}")
        return self.valuation[key]

    async def get_macro(self, symbol: Symbol) -> MacroData:
        self._known(symbol)
        if self.macro is None:
            raise DataUnavailableError("no macro")
        return self.macro

    async def get_news(self, symbol: Symbol, limit: int = 20) -> list[NewsItem]:
        return self.news.get(self._known(symbol), [])[:limit]

    async def available_symbols(self) -> list[str] | None:
        return sorted(set(self.bars) | set(self.financials) | set(self.valuation))


def answering(content: str) -> RecordingLLMEndpoint:
    return RecordingLLMEndpoint(lambda _request: chat_completion(content))
