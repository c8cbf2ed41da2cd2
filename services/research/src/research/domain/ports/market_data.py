"""Where the experts get their data. Adapters: the offline snapshot (default), AKShare, yfinance.

Every method raises ``SymbolNotFoundError`` for a symbol the provider does not know,
``DataUnavailableError`` for a category it has no data for (e.g. no valuation for 000001.SZ offline),
``DataProviderError`` / ``DataProviderTimeoutError`` when a live source fails or is too slow.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from research.domain.model.market_data import (
    FinancialStatements,
    MacroData,
    NewsItem,
    PriceHistory,
    SymbolCoverage,
    ValuationData,
)
from research.domain.model.symbol import Symbol


class IMarketDataProvider(ABC):
    name: str
    """Stated as ``data_source`` in results, e.g. ``offline-snapshot``, ``akshare``, ``yfinance``."""

    @abstractmethod
    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        """Daily bars up to and including ``end`` (all available when None), oldest first."""

    @abstractmethod
    async def get_financials(self, symbol: Symbol, limit: int) -> FinancialStatements:
        """The latest ``limit`` annual periods (fewer when fewer exist), oldest first."""

    @abstractmethod
    async def get_valuation(self, symbol: Symbol) -> ValuationData: ...

    @abstractmethod
    async def get_macro(self, symbol: Symbol) -> MacroData:
        """The macro backdrop of the symbol's market (China for A-shares)."""

    @abstractmethod
    async def get_news(self, symbol: Symbol, limit: int = 20) -> list[NewsItem]:
        """Recent news, newest first; an empty list when the provider has none (the offline snapshot)."""

    @abstractmethod
    async def available_symbols(self) -> list[str] | None:
        """Symbols this provider can serve, or None when it is open-ended (live providers)."""

    async def universe(self) -> list[SymbolCoverage] | None:
        """What the provider has for each symbol it can serve; None when it is open-ended (live providers)."""
        return None
