"""History and audit (GET /sessions, GET /sessions/{id}), what is stored and when it is committed,
and /readyz reporting the database — through the real app on a SQLite file."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    gateway_error,
    sample_result,
    verdict,
)
from coordinator_persistence_fakes import (
    RESEARCH,
    SESSIONS,
    AppUnderTest,
    coordinator_app,
    make_session,
    sqlite_url,
)

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ResearchSession
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from shared_contracts.judge import Verdict

TA, MI = "technical_analyst", "macro_intelligence"


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[AppUnderTest]:
    research = FakeExpertGateway({MI: gateway_error(message="research 504 peer_timeout: no answer in 120s")})
    async with coordinator_app(
        sqlite_url(tmp_path), research=research, debate=FakeDebateGateway(), judge=FakeJudgeGateway()
    ) as running:
        yield running


async def test_a_session_detail_holds_everything_stored(app: AppUnderTest) -> None:
    body = {"symbol": "600519.SH", "experts": [TA, MI], "options": {TA: {"analysis_date": "2026-02-13"}}}
    research = (await app.client.post(RESEARCH, json=body, headers={"X-Request-ID": "audit-42"})).json()

    response = await app.client.get(f"{SESSIONS}/{research['session_id']}")

    assert response.status_code == 200
    detail = response.json()
    assert detail["session_id"] == research["session_id"]
    assert (detail["symbol"], detail["experts"], detail["status"]) == ("600519.SH", [TA, MI], "partial")
    assert detail["stages_to_retry"] == [MI, "debate", "judge"]  # what POST .../retry would re-run
    assert detail["analysis_date"] == "2026-02-13"
    assert detail["request"] == {
        "symbol": "600519.SH",
        "analysis_date": "2026-02-13",
        "experts": [TA, MI],
        "options": {TA: {"analysis_date": "2026-02-13"}, MI: {}},
        "skip_debate": False,
        "language": None,  # named by neither the request nor REPORT_LANGUAGE: each peer wrote in its own
    }
    assert detail["request_id"] == "audit-42"
    assert (detail["retry_count"], detail["retried_from"]) == (0, None)
    ta, mi = detail["expert_results"][TA], detail["expert_results"][MI]
    assert ta["status"] == "success"
    assert ta["data"] == sample_result(TA)  # the raw result, input/output and indicators included
    assert ta["duration_ms"] is not None
    assert ta["attempts"] == 1
    assert (mi["status"], mi["data"], mi["attempts"]) == ("failed", None, 3)
    assert mi["error"] == "research 504 peer_timeout: no answer in 120s"
    assert detail["debate"]["status"] == "success"
    assert detail["debate_outcome"] == research["debate_outcome"]
    assert detail["judge"]["status"] == "success"
    # as the judge answered it, in the judge's model (the one POST answers with)
    assert detail["verdict"] == Verdict.model_validate(verdict("600519.SH")).model_dump(mode="json")
    assert detail["completed_at"] is not None
    assert detail["created_at"] <= detail["updated_at"]


async def test_a_session_is_found_whatever_the_case_of_its_id(app: AppUnderTest) -> None:
    session = await _store(app, symbol="600519.SH", minutes=1, status="completed")
    response = await app.client.get(f"{SESSIONS}/{session.session_id.upper()}")
    assert response.status_code == 200
    assert response.json()["session_id"] == session.session_id


@pytest.mark.parametrize("session_id", ["not-a-uuid", "%20", "%00", "0" * 300])
async def test_an_id_that_is_no_uuid_names_no_session(app: AppUnderTest, session_id: str) -> None:
    """Answered without asking the store (PostgreSQL refuses a NUL in a text parameter: it was a 500)."""
    response = await app.client.get(f"{SESSIONS}/{session_id}")
    retry = await app.client.post(f"{RESEARCH}/{session_id}/retry")
    assert response.status_code == retry.status_code == 404
    assert response.json()["code"] == retry.json()["code"] == "session_not_found"
    assert len(response.json()["detail"]) < 120  # a long id is not echoed whole


async def test_the_symbol_filter_reads_the_symbol_as_a_research_does(app: AppUnderTest) -> None:
    tencent = await _store(app, symbol="0700.HK", minutes=1, status="completed")
    found = (await app.client.get(SESSIONS, params={"symbol": "700.hk"})).json()
    assert [s["session_id"] for s in found["items"]] == [tencent.session_id]
    nothing = await app.client.get(SESSIONS, params={"symbol": "\x00"})
    assert (nothing.status_code, nothing.json()["total"]) == (200, 0)


async def test_an_unknown_session_is_404(app: AppUnderTest) -> None:
    response = await app.client.get(f"{SESSIONS}/{uuid.uuid4()}")

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "session_not_found"


@pytest.mark.parametrize(
    ("status", "overall_status"),
    [("completed", "completed"), ("partial", "partial"), ("failed", "failed"), ("running", None), ("cancelled", None)],
)
async def test_a_session_read_names_the_research_outcome_as_post_does(
    app: AppUnderTest, status: str, overall_status: str | None
) -> None:
    session = await _store(app, symbol="600519.SH", minutes=1, status=status)

    detail = (await app.client.get(f"{SESSIONS}/{session.session_id}")).json()
    listed = (await app.client.get(SESSIONS)).json()["items"][0]

    assert (detail["status"], detail["overall_status"]) == (status, overall_status)
    assert (listed["status"], listed["overall_status"]) == (status, overall_status)


async def _store(app: AppUnderTest, **kwargs: Any) -> ResearchSession:
    session = make_session(**kwargs)
    await app.sessions.create(session)
    return session


async def test_history_is_newest_first_filtered_and_paginated(app: AppUnderTest) -> None:
    old = await _store(app, symbol="600519.SH", minutes=1, status="completed")
    mid = await _store(app, symbol="000001.SZ", minutes=2, status="partial")
    new = await _store(app, symbol="600519.SH", minutes=3, status="partial")

    everything = (await app.client.get(SESSIONS)).json()
    assert [s["session_id"] for s in everything["items"]] == [new.session_id, mid.session_id, old.session_id]
    assert (everything["total"], everything["limit"], everything["offset"]) == (3, 20, 0)
    assert set(everything["items"][0]) == {
        "session_id",
        "symbol",
        "analysis_date",
        "language",
        "experts",
        "status",
        "action",
        "overall_status",
        "retry_count",
        "retried_from",
        "retried_by",
        "stages_to_retry",
        "created_at",
        "updated_at",
        "resume_count",
        "status_reason",
    }

    by_symbol = (await app.client.get(SESSIONS, params={"symbol": "600519.sh"})).json()
    assert [s["session_id"] for s in by_symbol["items"]] == [new.session_id, old.session_id]

    by_status = (await app.client.get(SESSIONS, params={"status": "partial", "limit": 1, "offset": 1})).json()
    assert [s["session_id"] for s in by_status["items"]] == [mid.session_id]
    assert (by_status["total"], by_status["limit"], by_status["offset"]) == (2, 1, 1)


async def test_the_history_lists_each_sessions_analysis_date_and_action(app: AppUnderTest) -> None:
    await _store(app, minutes=1, status="failed", analysis_date=date(2025, 6, 30))  # no verdict
    body = {"symbol": "600519.SH", "experts": [TA], "analysis_date": "2025-09-30"}
    done = (await app.client.post(RESEARCH, json=body)).json()
    items = (await app.client.get(SESSIONS)).json()["items"]
    assert [(s["analysis_date"], s["status"], s["action"]) for s in items] == [
        ("2025-09-30", done["overall_status"], done["verdict"]["action"]),
        ("2025-06-30", "failed", None),
    ]
    detail = (await app.client.get(f"{SESSIONS}/{done['session_id']}")).json()
    assert detail["action"] == done["verdict"]["action"]


async def test_the_page_size_is_capped(app: AppUnderTest) -> None:
    page = (await app.client.get(SESSIONS, params={"limit": 1000})).json()
    assert page["limit"] == 100


async def test_the_largest_offset_the_database_takes_is_an_empty_page(app: AppUnderTest) -> None:
    await _store(app, symbol="600519.SH", minutes=1, status="completed")
    page = (await app.client.get(SESSIONS, params={"offset": 2**63 - 1, "limit": 1000})).json()
    assert (page["items"], page["total"], page["offset"]) == ([], 1, 2**63 - 1)


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"offset": -1},
        {"offset": 2**63},
        {"offset": "1e20"},
        {"status": "exploded"},
        {"limit": "many"},
    ],
)
async def test_bad_history_queries_are_400(app: AppUnderTest, params: dict[str, Any]) -> None:
    response = await app.client.get(SESSIONS, params=params)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


async def test_readyz_reports_the_database(app: AppUnderTest) -> None:
    response = await app.client.get("/readyz")
    assert response.json()["checks"]["database"] == "ok"


async def test_readyz_is_503_when_the_database_is_unreachable(tmp_path: Path) -> None:
    async with coordinator_app(
        sqlite_url(tmp_path), research=FakeExpertGateway(), debate=FakeDebateGateway(), judge=FakeJudgeGateway()
    ) as app:
        engine = build_engine("postgresql+asyncpg://postgres@127.0.0.1:1/nowhere")
        app.container.sessions = SqlAlchemySessionRepository(engine)
        try:
            response = await app.client.get("/readyz")
        finally:
            await engine.dispose()

    assert response.status_code == 503
    assert response.json()["checks"]["database"] != "ok"


# --- nothing acknowledged is lost: commit order -----------------------------------------------------


class StoreWatcher:
    """Reads the store through its own engine (so it sees only what was committed) whenever a
    peer is called, and notes what it found."""

    def __init__(self) -> None:
        self.store: SqlAlchemySessionRepository | None = None
        self.seen: list[tuple[str, ResearchSession]] = []

    async def look(self, when: str) -> None:
        assert self.store is not None
        [running], _ = await self.store.list(symbol=None, status="running", limit=10, offset=0)
        self.seen.append((when, running))


class WatchedExperts(FakeExpertGateway):
    def __init__(self, watcher: StoreWatcher) -> None:
        super().__init__()
        self.watcher = watcher

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        await self.watcher.look(f"expert:{expert_type.value}")
        return await super().run_expert(expert_type, symbol, options)


class WatchedDebate(FakeDebateGateway):
    def __init__(self, watcher: StoreWatcher) -> None:
        super().__init__()
        self.watcher = watcher

    async def run_debate(self, symbol: str, expert_results: dict[str, Any], **asked: Any) -> dict[str, Any]:
        await self.watcher.look("debate")
        return await super().run_debate(symbol, expert_results, **asked)


class WatchedJudge(FakeJudgeGateway):
    def __init__(self, watcher: StoreWatcher) -> None:
        super().__init__()
        self.watcher = watcher

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        await self.watcher.look("judge")
        return await super().run_verdict(symbol, debate_outcome, context)


def stored_in_stage_order(session: ResearchSession) -> bool:
    """What is stored is a prefix of the run: no debate without every expert, no verdict without the debate."""
    experts_done = set(session.expert_outcomes) == set(session.experts)  # an expert is stored once it reported
    debate_done = session.debate.status != "pending"
    return (experts_done or not debate_done) and (debate_done or session.judge.status == "pending")


async def test_the_session_is_on_disk_before_the_first_call_stages_in_order_and_all_before_the_response(
    tmp_path: Path,
) -> None:
    url = sqlite_url(tmp_path)
    watcher = StoreWatcher()
    async with coordinator_app(
        url, research=WatchedExperts(watcher), debate=WatchedDebate(watcher), judge=WatchedJudge(watcher)
    ) as app:
        engine = build_engine(url)
        watcher.store = SqlAlchemySessionRepository(engine)
        try:
            response = await app.client.post(RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI]})
            # the response is sent only after the final commit
            after = await watcher.store.get(response.json()["session_id"])
        finally:
            await engine.dispose()

    seen = dict(watcher.seen)
    session_id = response.json()["session_id"]
    assert {s.session_id for _, s in watcher.seen} == {session_id}
    for expert in (TA, MI):  # written (running) before any downstream call
        assert seen[f"expert:{expert}"].status == "running"
    # a stage's write does not hold up the next stage, but the writes commit in stage order
    assert all(stored_in_stage_order(s) for _, s in watcher.seen)
    assert seen["debate"].debate.status == "pending"
    assert seen["judge"].judge.status == "pending"
    assert after is not None
    assert (after.status, after.judge.status, after.debate.status) == ("completed", "success", "success")
    assert {e: o.status for e, o in after.expert_outcomes.items()} == {TA: "success", MI: "success"}
    assert after.debate_outcome is not None
    assert after.verdict is not None
    assert after.completed_at is not None


async def test_history_filters_by_analysis_date_on_the_server(app: AppUnderTest) -> None:
    for day in ("2025-03-31", "2025-06-30", "2025-09-30"):
        body = {"symbol": "600519.SH", "experts": [TA], "analysis_date": day}
        assert (await app.client.post(RESEARCH, json=body)).status_code == 200

    window = {"analysis_date_from": "2025-04-01", "analysis_date_to": "2025-09-30", "limit": 1}
    page = (await app.client.get(SESSIONS, params=window)).json()
    assert page["total"] == 2  # counted on the server, not on the page returned
    assert [s["analysis_date"] for s in page["items"]] == ["2025-09-30"]
    since = (await app.client.get(SESSIONS, params={"analysis_date_from": "2025-06-30"})).json()
    assert sorted(s["analysis_date"] for s in since["items"]) == ["2025-06-30", "2025-09-30"]

    backwards = await app.client.get(
        SESSIONS, params={"analysis_date_from": "2025-09-30", "analysis_date_to": "2025-01-01"}
    )
    assert backwards.status_code == 400
    assert backwards.json()["code"] == "invalid_date_range"
    assert (await app.client.get(SESSIONS, params={"analysis_date_from": "June"})).status_code == 400
