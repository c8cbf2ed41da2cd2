"""PriceBarsGatewayAdapter against the research bars contract (respx): the request, the typed bars, and each
failure as the gateway error the outcome rules read (a peer call like the experts')."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import date

import httpx
import pytest
import respx
from outcome_fakes import bars_json, flat_bars

from coordinator.domain.exceptions import PeerContractError, PeerResponseError, PeerUnavailableError
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from coordinator.infrastructure.adapters.price_bars_gateway_adapter import PriceBarsGatewayAdapter
from shared_contracts.scoring import DailyBar

BASE = "http://research.test"
URL = f"{BASE}/api/v1/research/bars/600519.SH"
PRICES = ("open", "high", "low", "close", "volume")
POLICY = CallPolicy(budget_seconds=2.0, backoff_initial_seconds=0, backoff_max_seconds=0, backoff_jitter_seconds=0)


@pytest.fixture
async def adapter() -> AsyncIterator[PriceBarsGatewayAdapter]:
    async with httpx.AsyncClient() as client:
        yield PriceBarsGatewayAdapter(PeerClient("research", BASE, client, POLICY))


@respx.mock
async def test_asks_for_the_days_wanted_and_returns_typed_bars_oldest_first(adapter: PriceBarsGatewayAdapter) -> None:
    bars = [replace(bar, volume=1200.0 + i) for i, bar in enumerate(flat_bars(date(2025, 9, 1), 3))]
    reply = bars_json("600519.SH", bars)
    reply["bars"] = list(reversed(reply["bars"]))
    route = respx.get(URL).mock(return_value=httpx.Response(200, json=reply))
    got = await adapter.bars("600519.SH", start=date(2025, 9, 1), end=date(2025, 9, 30))

    assert got == bars
    assert all(isinstance(bar, DailyBar) for bar in got)
    sent = route.calls.last.request
    assert dict(sent.url.params) == {"start": "2025-09-01", "end": "2025-09-30"}


@respx.mock
async def test_without_days_it_asks_for_every_bar(adapter: PriceBarsGatewayAdapter) -> None:
    route = respx.get(URL).mock(return_value=httpx.Response(200, json=bars_json("600519.SH", [])))
    assert await adapter.bars("600519.SH") == []
    assert dict(route.calls.last.request.url.params) == {}


@respx.mock
async def test_no_bars_for_the_symbol_is_a_404_peer_response_error(adapter: PriceBarsGatewayAdapter) -> None:
    problem = {"type": "about:blank", "title": "Not Found", "status": 404, "detail": "no", "code": "symbol_not_found"}
    respx.get(URL).mock(return_value=httpx.Response(404, json=problem))
    with pytest.raises(PeerResponseError) as caught:
        await adapter.bars("600519.SH")
    assert (caught.value.status, caught.value.peer_code) == (404, "symbol_not_found")


@respx.mock
async def test_a_transient_failure_is_retried_like_every_peer_call(adapter: PriceBarsGatewayAdapter) -> None:
    route = respx.get(URL).mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(200, json=bars_json("600519.SH", flat_bars(date(2025, 9, 1), 2))),
        ]
    )
    assert len(await adapter.bars("600519.SH")) == 2
    assert route.call_count == 2


@respx.mock
async def test_an_unreachable_research_service_is_peer_unavailable(adapter: PriceBarsGatewayAdapter) -> None:
    respx.get(URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(PeerUnavailableError) as caught:
        await adapter.bars("600519.SH")
    assert caught.value.attempts == POLICY.max_attempts


@pytest.mark.parametrize(
    "body",
    [
        [1, 2],
        {"symbol": "600519.SH", "bars": "none"},
        bars_json("600519.SH", [])
        | {"bars": [{"date": "Sept 1", "open": 1, "high": 1, "low": 1, "close": 1, "volume": 1}]},
    ],
)
@respx.mock
async def test_a_reply_that_breaks_the_contract_is_a_contract_error(
    adapter: PriceBarsGatewayAdapter, body: object
) -> None:
    respx.get(URL).mock(return_value=httpx.Response(200, json=body))
    with pytest.raises(PeerContractError):
        await adapter.bars("600519.SH")
