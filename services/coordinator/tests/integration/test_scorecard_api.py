"""Outcomes and the scorecard through the real app: SQLite store, the real bars gateway, and the research
service's bars answered by respx on its URL (the container's client, at the httpx level)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    InMemorySessionRepository,
    fake_container,
    make_settings,
    serve,
)
from coordinator_persistence_fakes import SESSIONS, sqlite_url
from outcome_fakes import LLM_ENGINE, bars_json, flat_bars, judged_session, store, touched

from coordinator.container import build_container
from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.domain.model.outcome import StoredVerdict
from coordinator.domain.model.session import ResearchSession, StageOutcome
from coordinator.domain.ports.session_repository import VerdictFilter
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.main import create_app
from shared_contracts.scoring import score_trade
from verdict_statistics.scorecard import ScoredCall, action_outcomes

RESEARCH_URL = "http://research.test"
SCORECARD = "/api/v1/coordinator/scorecard"
SYMBOL, OTHER = "600519.SH", "000001.SZ"
FRIDAY = date(2025, 6, 27)
# 600519.SH: flat at 100 from 2025-06-20, up to 120 on 2025-07-02: a BUY entered on 2025-06-27 meets its target
SERIES = touched(flat_bars(date(2025, 6, 20), 60), 8, high=120.0)
LATE = SERIES[-1].day


def bars_url(symbol: str) -> str:
    return f"{RESEARCH_URL}/api/v1/research/bars/{symbol}"


@dataclass
class Rig:
    client: httpx.AsyncClient
    sessions: SqlAlchemySessionRepository
    research: respx.MockRouter

    def bars(self, symbol: str, bars: Any = None, **mock: Any) -> respx.Route:
        """The research service's bars of ``symbol`` (``bars``), or ``mock`` (e.g. ``side_effect``)."""
        route = self.research.get(bars_url(symbol))
        if bars is not None:
            mock["return_value"] = httpx.Response(200, json=bars_json(symbol, bars))
        return route.mock(**mock)

    async def stored(self, *sessions: ResearchSession) -> list[str]:
        return [(await store(self.sessions, session)).session_id for session in sessions]

    async def scorecard(self, **filters: str) -> dict[str, Any]:
        response = await self.client.get(SCORECARD, params=filters)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@contextlib.contextmanager
def research_mocked() -> Iterator[respx.MockRouter]:
    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.route(host="t").pass_through()
        yield router


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    url = sqlite_url(tmp_path)
    sessions, close = await open_session_store(url)
    settings = make_settings(database_url=url, research_service_url=RESEARCH_URL)
    container = build_container(  # no bars gateway given: the real one, over HTTP
        settings,
        research_gateway=FakeExpertGateway(),
        debate_gateway=FakeDebateGateway(),
        judge_gateway=FakeJudgeGateway(),
        sessions=sessions,
    )
    app = create_app(settings, container=container)
    try:
        with research_mocked() as router:
            async with app.router.lifespan_context(app):
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                    yield Rig(client, sessions, router)
    finally:
        await container.aclose()
        await close()


# --- a session's outcome -------------------------------------------------------------------------------


async def test_a_buy_hit_by_its_target_shows_exactly_the_target_percent(rig: Rig) -> None:
    route = rig.bars(SYMBOL, SERIES)
    [session_id] = await rig.stored(judged_session(as_of=FRIDAY, analysis_date=date(2025, 6, 29), target=15.0))

    response = await rig.client.get(f"{SESSIONS}/{session_id}", headers={"X-Request-ID": "audit-outcome-1"})

    assert response.status_code == 200, response.text
    assert response.json()["outcome"] == {
        "status": "scored",
        "entry_day": "2025-06-30",  # the open after Friday's signal close
        "entry_price": 100.0,
        "exit_day": "2025-07-02",
        "exit_price": 115.0,
        "exit_reason": "target",
        "holding_days": 3,
        "call_return": 0.147,  # after the 0.3 % round trip
        "realised_return": 0.147,
        "underlying_return": 0.15,
        "profitable": True,
        "reason": None,
    }
    sent = route.calls.last.request
    assert dict(sent.url.params) == {"start": "2025-05-13"}  # 45 days before the entry day, to the last bar
    assert sent.headers["X-Request-ID"] == "audit-outcome-1"


async def test_before_its_horizon_has_passed_the_outcome_is_pending(rig: Rig) -> None:
    rig.bars(SYMBOL, flat_bars(FRIDAY, 8))
    [session_id] = await rig.stored(judged_session(as_of=FRIDAY, horizon="MEDIUM_TERM"))

    outcome = (await rig.client.get(f"{SESSIONS}/{session_id}")).json()["outcome"]

    assert outcome["status"] == "pending"
    assert outcome["reason"] == "7 of 60 trading days have passed"
    assert (outcome["entry_day"], outcome["entry_price"], outcome["exit_day"], outcome["call_return"]) == (
        "2025-06-30",
        100.0,
        None,
        None,
    )
    assert outcome["profitable"] is None


async def test_a_session_without_a_verdict_has_a_null_outcome_and_asks_for_no_bars(rig: Rig) -> None:
    route = rig.bars(SYMBOL, SERIES)
    session = judged_session(as_of=FRIDAY)
    session.judge = StageOutcome("failed", error="judge 500 llm_output_invalid: not JSON")
    [session_id] = await rig.stored(session)

    detail = (await rig.client.get(f"{SESSIONS}/{session_id}")).json()

    assert detail["outcome"] is None
    assert not route.called


async def test_an_unreachable_research_service_leaves_the_session_readable_with_an_unavailable_outcome(
    rig: Rig,
) -> None:
    route = rig.bars(SYMBOL, side_effect=httpx.ConnectError("connection refused"))
    [session_id] = await rig.stored(judged_session(as_of=FRIDAY))

    response = await rig.client.get(f"{SESSIONS}/{session_id}")

    assert response.status_code == 200, response.text
    detail = response.json()
    assert detail["verdict"]["action"] == "BUY"
    outcome = detail["outcome"]
    assert (outcome["status"], outcome["entry_day"], outcome["entry_price"]) == ("unavailable", "2025-06-27", None)
    assert (
        outcome["reason"]
        == "the bars could not be fetched: research unreachable: connection failed (ConnectError) (3 attempts)"
    )
    assert route.call_count == 3  # retried as every peer call is


# --- the scorecard -------------------------------------------------------------------------------------


async def test_the_scorecard_has_the_reports_figures_and_fetches_each_symbols_bars_once(rig: Rig) -> None:
    main = rig.bars(SYMBOL, SERIES)
    other = rig.bars(OTHER, flat_bars(FRIDAY, 30))
    source = judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=3, confidence=0.7)
    await rig.stored(
        judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1, confidence=0.8),
        judged_session(OTHER, as_of=FRIDAY, analysis_date=FRIDAY, minutes=2, action="HOLD"),
        source,
        judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=4, retried_from=source.session_id),
        judged_session(as_of=LATE, analysis_date=LATE, minutes=5, engine=LLM_ENGINE),
    )

    card = await rig.scorecard()

    assert (main.call_count, other.call_count) == (1, 1)
    assert card["filters"] == {"symbol": None, "engine": None, "start": None, "end": None}
    assert (card["sessions"], card["matching"], card["truncated"], card["limit"]) == (4, 4, False, 5000)
    assert (card["scored"], card["pending"], card["not_scorable"], card["unavailable"]) == (3, 1, 0, 0)
    assert card["actions"] == {"BUY": 3, "SELL": 0, "HOLD": 1}
    assert card["as_of"] == SERIES[-1].day.isoformat()
    assert card["method"] == "docs/evaluation.md"
    assert card["unavailable_symbols"] == {}
    buy = card["per_action"]["BUY"]
    assert (buy["count"], buy["scored"], buy["pending"]) == (3, 2, 1)  # entered on the last bar: pending
    assert buy["hit_rate"]["value"] == 1.0
    assert buy["call_return"]["mean"]["value"] == 0.147  # both BUYs met their 15 % target, less 0.3 % costs
    assert buy["exits"] == {"stop": 0, "target": 2, "horizon": 0}
    trade = score_trade(
        SERIES, entry_day=FRIDAY, action="BUY", time_horizon="SHORT_TERM", stop_percent=-8, take_profit_percent=15
    )
    assert buy == action_outcomes([ScoredCall("BUY", 0.8, trade), ScoredCall("BUY", 0.66, trade)], "BUY") | {
        "count": 3,
        "pending": 1,
    }
    assert card["per_action"]["HOLD"]["hit_rate"] is None
    assert card["calibration"]["n"] == 2
    assert set(card["calibration"]) == {"n", "bins", "brier"}
    assert (card["benchmarks"], card["ic_size_neutral"]) == (None, None)  # no month of ten sessions
    assert card["benchmarks_reason"].startswith("too few months: 0 month(s)")


async def test_the_scorecards_filters(rig: Rig) -> None:
    rig.bars(SYMBOL, SERIES)
    rig.bars(OTHER, flat_bars(FRIDAY, 30))
    await rig.stored(
        judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1),
        judged_session(OTHER, as_of=FRIDAY, analysis_date=FRIDAY, minutes=2),
        judged_session(as_of=date(2025, 7, 4), analysis_date=date(2025, 7, 4), minutes=3, engine=LLM_ENGINE),
    )

    assert (await rig.scorecard(symbol="600519.sh"))["sessions"] == 2
    assert (await rig.scorecard(symbol="600519.sh"))["filters"]["symbol"] == SYMBOL
    assert (await rig.scorecard(engine="qwen-plus"))["sessions"] == 1
    assert (await rig.scorecard(engine="rules"))["sessions"] == 2
    assert (await rig.scorecard(start="2025-07-01"))["sessions"] == 1
    june = await rig.scorecard(symbol=SYMBOL, engine="rules", start="2025-06-01", end="2025-06-30")
    assert (june["sessions"], june["filters"]) == (
        1,
        {"symbol": SYMBOL, "engine": "rules", "start": "2025-06-01", "end": "2025-06-30"},
    )
    assert (await rig.scorecard(symbol="AAPL"))["sessions"] == 0


async def test_the_scorecard_counts_sessions_whose_bars_cannot_be_had_as_unavailable(rig: Rig) -> None:
    rig.bars(SYMBOL, side_effect=httpx.ConnectError("connection refused"))
    rig.bars(OTHER, flat_bars(FRIDAY, 30))
    await rig.stored(
        judged_session(as_of=FRIDAY, analysis_date=FRIDAY, minutes=1),
        judged_session(OTHER, as_of=FRIDAY, analysis_date=FRIDAY, minutes=2),
    )

    card = await rig.scorecard()

    assert (card["sessions"], card["scored"], card["unavailable"]) == (2, 1, 1)
    assert card["per_action"]["BUY"]["count"] == 1
    assert list(card["unavailable_symbols"]) == [SYMBOL]
    assert card["unavailable_symbols"][SYMBOL].startswith("research unreachable: connection failed (ConnectError)")


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"symbol": "not a symbol"}, "invalid_symbol"),
        ({"engine": "m" * 200}, "invalid_engine"),
        ({"start": "2025-02-30"}, "invalid_date"),
        ({"end": "30/06/2025"}, "invalid_date"),
        ({"start": "2025-07-01", "end": "2025-06-01"}, "invalid_date_range"),
    ],
)
async def test_bad_filters_are_400_problems_with_their_code(rig: Rig, params: dict[str, str], code: str) -> None:
    response = await rig.client.get(SCORECARD, params=params)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == code


async def test_openapi_lists_the_scorecard_its_400_and_the_sessions_outcome(rig: Rig) -> None:
    schema = (await rig.client.get("/openapi.json")).json()
    responses = schema["paths"][SCORECARD]["get"]["responses"]
    assert {"200", "400", "503"} <= set(responses)
    assert "invalid_date_range" in responses["400"]["description"]
    assert "outcome" in schema["components"]["schemas"]["SessionDetail"]["properties"]


async def test_a_session_store_that_is_down_makes_the_scorecard_503() -> None:
    class Down(InMemorySessionRepository):
        async def list_verdicts(self, where: VerdictFilter, *, limit: int) -> tuple[Sequence[StoredVerdict], int]:
            raise SessionStoreUnavailableError("The session store is unavailable: ConnectionRefusedError")

    async with serve(fake_container(sessions=Down())) as client:
        response = await client.get(SCORECARD)
    assert response.status_code == 503
    assert response.json()["code"] == "session_store_unavailable"
