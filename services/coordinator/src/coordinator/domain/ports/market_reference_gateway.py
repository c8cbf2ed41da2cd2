"""What the console shows beside a research: the symbols research can analyse and a symbol's daily bars with
volume, as the research service publishes them (its wire models)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from shared_contracts.research import PriceBars, Universe


class IMarketReferenceGateway(ABC):
    @abstractmethod
    async def universe(self) -> Universe:
        """The research service's universe (``GET /api/v1/research/universe``). Raises ``GatewayError``."""

    @abstractmethod
    async def price_bars(self, symbol: str, start: date | None = None, end: date | None = None) -> PriceBars:
        """The symbol's daily bars from ``start`` to ``end`` (inclusive; None: unbounded), oldest first, with
        volume and provenance. Raises ``GatewayError``: a ``PeerResponseError`` with status 404 when research has
        no bars for the symbol."""
