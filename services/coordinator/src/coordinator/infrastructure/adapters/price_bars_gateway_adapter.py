"""IPriceBarsGateway over HTTP: GET {RESEARCH_SERVICE_URL}/api/v1/research/bars/{symbol}?start=&end=.

The reply is checked against its wire model (``shared_contracts.research.PriceBars``) and handed on as
``shared_contracts.scoring.DailyBar`` values, oldest first. The call is a peer call like the experts' (the
``PeerClient``: its time budget, retries of transient failures, X-Request-ID forwarded); a 404 (no bars for
the symbol) is a ``PeerResponseError`` with status 404.
"""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import quote

from coordinator.domain.exceptions import PeerContractError
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient
from shared_contracts.experts import is_iso_date
from shared_contracts.research import PriceBars
from shared_contracts.scoring import DailyBar

BARS_PATH = "/api/v1/research/bars/"


class PriceBarsGatewayAdapter(IPriceBarsGateway):
    def __init__(self, research: PeerClient) -> None:
        self._research = research

    async def bars(self, symbol: str, start: date | None = None, end: date | None = None) -> list[DailyBar]:
        params = {name: day.isoformat() for name, day in (("start", start), ("end", end)) if day is not None}
        body, attempts = await self._research.get_json(BARS_PATH + quote(symbol, safe=""), params)
        return self._checked(symbol, body, attempts)

    def _checked(self, symbol: str, body: Any, attempts: int) -> list[DailyBar]:
        service = self._research.service
        reply = self._research.parsed(PriceBars, body, attempts, f"bars of {symbol}: the reply")
        bad = next((bar.date for bar in reply.bars if not is_iso_date(bar.date[:10])), None)
        if bad is not None:
            raise PeerContractError(
                service, f"{service} bars of {symbol}: {bad[:40]!r} is not a YYYY-MM-DD day", attempts=attempts
            )
        bars = [DailyBar(date.fromisoformat(b.date[:10]), b.open, b.high, b.low, b.close, b.volume) for b in reply.bars]
        return sorted(bars, key=lambda bar: bar.day)
