"""Outcomes and the scorecard against the real research app, in-process (ASGI transport, lifespan entered; rules
engine over the offline snapshot): a research made through the coordinator is scored on the bars the research
service serves, exactly as ``score_trade`` scores it on those bars."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import httpx
import pytest
from coordinator_fakes import FakeDebateGateway, FakeJudgeGateway, make_settings, verdict
from coordinator_persistence_fakes import RESEARCH, SESSIONS, sqlite_url

from coordinator.container import build_container
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient
from coordinator.infrastructure.adapters.price_bars_gateway_adapter import PriceBarsGatewayAdapter
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.main import create_app
from shared_contracts.research import PriceBars
from shared_contracts.scoring import DailyBar, score_trade
from verdict_statistics.scorecard import rounded

research_main = pytest.importorskip("research.main", reason="the research package is not installed alongside")
research_settings = pytest.importorskip("research.settings")

SYMBOL = "600519.SH"
BASE = "http://research.in-process"
BARS = f"/api/v1/research/bars/{SYMBOL}"


@dataclass
class Stack:
    coordinator: httpx.AsyncClient
    research: httpx.AsyncClient


@pytest.fixture
async def research_client() -> AsyncIterator[httpx.AsyncClient]:
    settings = research_settings.Settings(analysis_engine="rules", market_data_provider="offline", log_json=True)
    app = research_main.create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


@pytest.fixture
async def stack(research_client: httpx.AsyncClient, tmp_path: Path) -> AsyncIterator[Stack]:
    url = sqlite_url(tmp_path)
    sessions, close = await open_session_store(url)
    settings = make_settings(database_url=url, research_service_url=BASE, expert_timeout_seconds=60.0)
    container = build_container(  # the real research gateway and bars gateway, over the in-process research app
        settings,
        http_client=research_client,
        debate_gateway=FakeDebateGateway(),
        judge_gateway=FakeJudgeGateway(),
        sessions=sessions,
    )
    app = create_app(settings, container=container)
    try:
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://t") as client,
        ):
            yield Stack(client, research_client)
    finally:
        await container.aclose()
        await close()


async def test_the_gateway_reads_the_research_services_bars(research_client: httpx.AsyncClient) -> None:
    gateway = PriceBarsGatewayAdapter(PeerClient("research", BASE, research_client, CallPolicy(budget_seconds=30.0)))
    bars = await gateway.bars(SYMBOL, start=date(2025, 9, 1))
    reply = PriceBars.model_validate((await research_client.get(BARS, params={"start": "2025-09-01"})).json())
    assert [bar.day.isoformat() for bar in bars] == [bar.date for bar in reply.bars]
    first = reply.bars[0]
    assert bars[0] == DailyBar(date(2025, 9, 1), first.open, first.high, first.low, first.close, first.volume)


async def test_a_research_through_the_coordinator_is_scored_on_the_research_services_bars(stack: Stack) -> None:
    made = await stack.coordinator.post(
        RESEARCH, json={"symbol": SYMBOL, "experts": ["technical_analyst"], "analysis_date": "2024-06-30"}
    )
    assert made.status_code == 200, made.text
    body = made.json()
    as_of = body["expert_results"]["technical_analyst"]["data"]["as_of"]
    assert as_of == "2024-06-28"  # 2024-06-30 is a Sunday: the last close before it

    outcome = (await stack.coordinator.get(f"{SESSIONS}/{body['session_id']}")).json()["outcome"]

    reply = PriceBars.model_validate((await stack.research.get(BARS)).json())
    bars = [DailyBar(date.fromisoformat(b.date), b.open, b.high, b.low, b.close) for b in reply.bars]
    terms = verdict(SYMBOL)  # what the (fake) judge answered
    expected = score_trade(
        bars,
        entry_day=date.fromisoformat(as_of),
        action=terms["action"],
        time_horizon=terms["time_horizon"],
        stop_percent=terms["stop_loss"]["percent_from_entry"],
        take_profit_percent=terms["take_profit"]["percent_from_entry"],
        symbol=SYMBOL,
    )
    assert expected.status == "scored"
    assert expected.exit_day is not None
    assert expected.entry_day is not None
    assert expected.entry_day > date.fromisoformat(as_of)  # the next open after the signal close
    assert outcome == {
        "status": "scored",
        "entry_day": expected.entry_day.isoformat(),
        "entry_price": expected.entry_price,
        "exit_day": expected.exit_day.isoformat(),
        "exit_price": rounded(expected.exit_price),
        "exit_reason": expected.exit_reason,
        "holding_days": expected.holding_days,
        "call_return": rounded(expected.call_return),
        "realised_return": rounded(expected.realised_return),
        "underlying_return": rounded(expected.underlying_return),
        "profitable": expected.profitable,
        "reason": None,
    }

    card = (await stack.coordinator.get("/api/v1/coordinator/scorecard", params={"symbol": SYMBOL})).json()
    assert (card["sessions"], card["scored"], card["unavailable"]) == (1, 1, 0)
    assert card["as_of"] == reply.bars[-1].date
    assert card["per_action"]["BUY"]["call_return"]["mean"]["value"] == rounded(expected.call_return)
