"""What the console reads beside the sessions: the research universe (the symbol search) and a symbol's daily
bars with volume (the session's chart), as the research service has them now."""

from __future__ import annotations

from coordinator.application.dtos.scorecard import optional_day
from coordinator.domain.exceptions import PeerResponseError
from coordinator.domain.ports.market_reference_gateway import IMarketReferenceGateway
from shared_contracts.errors import InvalidDateRangeError, InvalidSymbolError, SymbolNotFoundError
from shared_contracts.research import PriceBars, Universe
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol


class MarketReferenceService:
    def __init__(self, gateway: IMarketReferenceGateway) -> None:
        self._gateway = gateway

    async def universe(self) -> Universe:
        return await self._gateway.universe()

    async def bars(self, symbol: str, start: str | None = None, end: str | None = None) -> PriceBars:
        """The bars of ``symbol`` between the optional YYYY-MM-DD days ``start`` and ``end`` (inclusive). A bad
        symbol or day is a 400 (``invalid_symbol``, ``invalid_date``, ``invalid_date_range``); a symbol research
        has no bars for is a ``SymbolNotFoundError``."""
        try:
            canonical = normalize_symbol(symbol)
        except SymbolSyntaxError as exc:
            raise InvalidSymbolError(str(exc)) from None
        first, last = optional_day("start", start), optional_day("end", end)
        if first is not None and last is not None and first > last:
            raise InvalidDateRangeError(f"start {first} is after end {last}")
        try:
            return await self._gateway.price_bars(canonical, first, last)
        except PeerResponseError as exc:
            if exc.status == 404:
                raise SymbolNotFoundError(f"No bars for {canonical}: {exc.detail}") from None
            raise
