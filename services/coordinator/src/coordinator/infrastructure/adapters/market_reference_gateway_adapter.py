"""IMarketReferenceGateway over HTTP: ``GET {RESEARCH_SERVICE_URL}/api/v1/research/universe`` and
``…/bars/{symbol}?start=&end=``, each reply checked against its wire model (a peer call like the others: the
``PeerClient``'s budget, retries and errors)."""

from __future__ import annotations

from datetime import date
from urllib.parse import quote

from coordinator.domain.ports.market_reference_gateway import IMarketReferenceGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient
from coordinator.infrastructure.adapters.price_bars_gateway_adapter import BARS_PATH
from shared_contracts.research import PriceBars, Universe

UNIVERSE_PATH = "/api/v1/research/universe"


class MarketReferenceGatewayAdapter(IMarketReferenceGateway):
    def __init__(self, research: PeerClient) -> None:
        self._research = research

    async def universe(self) -> Universe:
        body, attempts = await self._research.get_json(UNIVERSE_PATH)
        return self._research.parsed(Universe, body, attempts, "universe: the reply")

    async def price_bars(self, symbol: str, start: date | None = None, end: date | None = None) -> PriceBars:
        params = {name: day.isoformat() for name, day in (("start", start), ("end", end)) if day is not None}
        body, attempts = await self._research.get_json(BARS_PATH + quote(symbol, safe=""), params)
        return self._research.parsed(PriceBars, body, attempts, f"bars of {symbol}: the reply")
