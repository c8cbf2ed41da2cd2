"""How the coordinator reads a symbol's daily bars: to score stored verdicts on what happened after them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from shared_contracts.scoring import DailyBar


class IPriceBarsGateway(ABC):
    @abstractmethod
    async def bars(self, symbol: str, start: date | None = None, end: date | None = None) -> list[DailyBar]:
        """The symbol's daily bars from ``start`` to ``end`` (both inclusive; None: unbounded), oldest first, as
        the research service has them now. Raises ``GatewayError``: a ``PeerResponseError`` with status 404 when
        it has no bars for the symbol."""
