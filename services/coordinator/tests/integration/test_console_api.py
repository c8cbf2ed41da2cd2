"""What the web console reads from the coordinator, through the real app: the universe and a symbol's bars
(the real gateway over HTTP, the research service answered by respx), and the console's static files with their
Content-Security-Policy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import fake_container, serve
from outcome_fakes import bars_json, flat_bars

from coordinator.presentation.console.site import CONTENT_SECURITY_POLICY

RESEARCH = "http://research.test/api/v1/research"
UNIVERSE = {
    "data_provider": "offline-snapshot",
    "open_ended": False,
    "count": 1,
    "symbols": [
        {"symbol": "600519.SH", "market": "SH", "bars": {"first": "2022-01-04", "last": "2025-09-30", "count": 900}}
    ],
}


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with serve(fake_container()) as running:
        yield running


@pytest.fixture
def research() -> Any:
    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.route(host="t").pass_through()
        yield router


async def test_the_universe_is_research_s(client: httpx.AsyncClient, research: respx.MockRouter) -> None:
    research.get(f"{RESEARCH}/universe").mock(return_value=httpx.Response(200, json=UNIVERSE))
    response = await client.get("/api/v1/coordinator/universe")
    assert response.status_code == 200
    assert response.json()["symbols"][0]["symbol"] == "600519.SH"
    assert response.json()["symbols"][0]["bars"] == UNIVERSE["symbols"][0]["bars"]


async def test_bars_carry_volume_and_the_asked_days(client: httpx.AsyncClient, research: respx.MockRouter) -> None:
    bars = flat_bars(date(2024, 6, 3), 5)
    route = research.get(f"{RESEARCH}/bars/600519.SH").mock(
        return_value=httpx.Response(200, json=bars_json("600519.SH", bars))
    )
    response = await client.get(
        "/api/v1/coordinator/bars/600519.sh", params={"start": "2024-06-01", "end": "2024-06-30"}
    )
    assert response.status_code == 200
    assert [b["volume"] for b in response.json()["bars"]] == [1.0] * 5
    assert dict(route.calls.last.request.url.params) == {"start": "2024-06-01", "end": "2024-06-30"}


async def test_a_symbol_without_bars_is_a_404_symbol_not_found(
    client: httpx.AsyncClient, research: respx.MockRouter
) -> None:
    problem = {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "no bars",
        "code": "symbol_not_found",
    }
    research.get(f"{RESEARCH}/bars/999999.SH").mock(return_value=httpx.Response(404, json=problem))
    response = await client.get("/api/v1/coordinator/bars/999999.SH")
    assert response.status_code == 404
    assert response.json()["code"] == "symbol_not_found"
    assert response.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/api/v1/coordinator/bars/not%20a%20symbol", "invalid_symbol"),
        ("/api/v1/coordinator/bars/600519.SH?start=2024-13-01", "invalid_date"),
        ("/api/v1/coordinator/bars/600519.SH?start=2024-06-30&end=2024-06-01", "invalid_date_range"),
    ],
)
async def test_a_bad_request_is_a_400_naming_the_mistake(client: httpx.AsyncClient, path: str, code: str) -> None:
    response = await client.get(path)
    assert response.status_code == 400
    assert response.json()["code"] == code


async def test_a_reply_that_breaks_the_contract_is_a_502(client: httpx.AsyncClient, research: respx.MockRouter) -> None:
    research.get(f"{RESEARCH}/universe").mock(return_value=httpx.Response(200, json={"symbols": "none"}))
    response = await client.get("/api/v1/coordinator/universe")
    assert response.status_code == 502
    assert response.json()["code"] == "peer_contract"


async def test_the_console_is_served_with_its_own_policy(client: httpx.AsyncClient) -> None:
    redirect = await client.get("/console")
    assert redirect.status_code == 308
    assert redirect.headers["location"] == "/console/"
    page = await client.get("/console/")
    assert page.status_code == 200
    assert '<script type="module" src="js/app.js"></script>' in page.text
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    script = await client.get("/console/js/app.js")
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert (await client.get("/console/nothing-here.js")).status_code == 404
    assert "/console" not in str((await client.get("/openapi.json")).json()["paths"])
