"""``SqlAlchemySessionRepository`` against every backend it supports, with the same tests:
SQLite (a file), the local PostgreSQL server (a throw-away database per run), and a testcontainers
PostgreSQL (when a Docker engine runs). Unavailable backends skip with the reason."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from coordinator_fakes import InMemorySessionRepository
from coordinator_persistence_fakes import (
    local_postgres_database,
    make_session,
    postgres_container_url,
    repository_on,
    sqlite_url,
)
from outcome_fakes import LLM_ENGINE, judged_session, store
from sqlalchemy import text

from coordinator.domain.exceptions import RetryAlreadyStartedError, SessionNotFoundError
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.session_repository import ISessionRepository, VerdictFilter
from coordinator.infrastructure.persistence.instances import SqlAlchemyInstanceStore
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres-local", marks=pytest.mark.postgres),
    pytest.param("container", id="postgres-testcontainers", marks=pytest.mark.docker),
]


@pytest.fixture(scope="session")
def local_pg_url() -> Iterator[str]:
    with local_postgres_database() as url:
        yield url


@pytest.fixture(scope="session")
def container_pg_url() -> Iterator[str]:
    with postgres_container_url() as url:
        yield url


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path)
    url: str = request.getfixturevalue("local_pg_url" if request.param == "postgres" else "container_pg_url")
    return url


@pytest.fixture
async def repo(database_url: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    repository, close = await open_session_store(database_url)
    # PostgreSQL databases live for the whole run: each test starts from empty tables.
    async with repository._engine.begin() as conn:
        await conn.execute(text("DELETE FROM research_session_experts"))
        await conn.execute(text("DELETE FROM research_sessions"))
    try:
        yield repository
    finally:
        await close()


@pytest.fixture
async def second_repo(database_url: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    """Another engine on the same database: what it reads was committed, not cached."""
    async with repository_on(database_url) as repository:
        yield repository


RAW = {
    "signal": "BULLISH",
    "confidence": 0.72,
    "summary_reasoning": "均线多头排列，MACD 金叉",
    "technical_indicators": {"rsi": 61.5, "ma": [10.1, 10.4, None]},
    "input": {"prompt": "…"},
}


async def test_create_then_get_round_trips_everything(
    repo: SqlAlchemySessionRepository, second_repo: SqlAlchemySessionRepository
) -> None:
    session = make_session(options={"technical_analyst": {"analysis_date": "2026-02-13"}, "x": {"limit": 5}})
    await repo.create(session)

    got = await second_repo.get(session.session_id)

    assert got is not None
    assert (got.symbol, got.experts, got.options, got.skip_debate) == (
        "000001.SZ",
        ["technical_analyst", "macro_intelligence"],
        {"technical_analyst": {"analysis_date": "2026-02-13"}, "x": {"limit": 5}},
        False,
    )
    assert (got.status, got.retry_count, got.retried_from, got.request_id) == ("running", 0, None, session.request_id)
    assert got.created_at == session.created_at
    assert got.created_at.tzinfo is not None
    assert got.expert_outcomes == {}
    assert (got.debate.status, got.judge.status, got.debate_outcome, got.verdict) == ("pending", "pending", None, None)
    assert got.completed_at is None


async def test_the_analysis_date_round_trips(
    repo: SqlAlchemySessionRepository, second_repo: SqlAlchemySessionRepository
) -> None:
    dated, undated = make_session(analysis_date=date(2025, 9, 30), options={}), make_session(options={})
    await repo.create(dated)
    await repo.create(undated)

    got_dated, got_undated = await second_repo.get(dated.session_id), await second_repo.get(undated.session_id)

    assert got_dated is not None
    assert got_undated is not None
    assert (got_dated.analysis_date, got_undated.analysis_date) == (date(2025, 9, 30), None)


async def test_get_unknown_session_is_none(repo: SqlAlchemySessionRepository) -> None:
    assert await repo.get("00000000-0000-0000-0000-000000000000") is None
    assert await repo.get("not-a-uuid") is None


async def test_each_stage_is_committed_as_it_is_recorded(
    repo: SqlAlchemySessionRepository, second_repo: SqlAlchemySessionRepository
) -> None:
    session = make_session()
    await repo.create(session)
    sid = session.session_id

    await repo.record_expert(sid, "technical_analyst", ExpertOutcome("success", RAW, None, 812.5, 1))
    seen = await second_repo.get(sid)
    assert seen is not None
    assert seen.expert_outcomes == {"technical_analyst": ExpertOutcome("success", RAW, None, 812.5, 1)}
    assert seen.status == "running"

    await repo.record_expert(
        sid, "macro_intelligence", ExpertOutcome("failed", None, "research 504 peer_timeout", 30000.0, 3)
    )
    await repo.record_debate(sid, StageOutcome("success", None, 1200.0, {"direction": "BULLISH", "confidence": 0.6}))
    await repo.record_verdict(sid, StageOutcome("failed", "judge 502 llm_output_invalid", 900.0))
    await repo.finish(sid, "partial")

    done = await second_repo.get(sid)
    assert done is not None
    assert done.status == "partial"
    assert done.expert_outcomes["macro_intelligence"] == ExpertOutcome(
        "failed", None, "research 504 peer_timeout", 30000.0, 3
    )
    assert list(done.expert_outcomes) == ["technical_analyst", "macro_intelligence"]
    assert done.debate == StageOutcome("success", None, 1200.0, {"direction": "BULLISH", "confidence": 0.6})
    assert done.debate_outcome == {"direction": "BULLISH", "confidence": 0.6}
    assert done.judge == StageOutcome("failed", "judge 502 llm_output_invalid", 900.0)
    assert done.verdict is None
    assert done.completed_at is not None
    assert done.updated_at >= done.created_at
    assert done.failed_experts == ["macro_intelligence"]


async def test_recording_an_expert_again_replaces_its_outcome(repo: SqlAlchemySessionRepository) -> None:
    session = make_session()
    await repo.create(session)
    await repo.record_expert(session.session_id, "technical_analyst", ExpertOutcome("failed", None, "boom"))
    await repo.record_expert(session.session_id, "technical_analyst", ExpertOutcome("success", RAW, None, 5.0, 2))

    got = await repo.get(session.session_id)
    assert got is not None
    assert got.expert_outcomes == {"technical_analyst": ExpertOutcome("success", RAW, None, 5.0, 2)}


async def test_carried_outcomes_given_at_create_are_stored(repo: SqlAlchemySessionRepository) -> None:
    carried = {"technical_analyst": ExpertOutcome("success", RAW, None, 10.0, 1)}
    session = make_session(outcomes=carried)
    await repo.create(session)

    got = await repo.get(session.session_id)
    assert got is not None
    assert got.expert_outcomes == carried


@pytest.mark.parametrize("write", ["expert", "debate", "verdict", "finish"])
async def test_writes_to_an_unknown_session_raise_not_found(repo: SqlAlchemySessionRepository, write: str) -> None:
    sid = "11111111-1111-1111-1111-111111111111"
    calls: dict[str, Any] = {
        "expert": lambda: repo.record_expert(sid, "technical_analyst", ExpertOutcome("success", RAW)),
        "debate": lambda: repo.record_debate(sid, StageOutcome("success", data={"direction": "BULLISH"})),
        "verdict": lambda: repo.record_verdict(sid, StageOutcome("failed", "x")),
        "finish": lambda: repo.finish(sid, "completed"),
    }
    with pytest.raises(SessionNotFoundError) as caught:
        await calls[write]()
    assert caught.value.code == "session_not_found"


async def test_parallel_expert_writes_to_one_session_are_all_kept(repo: SqlAlchemySessionRepository) -> None:
    experts = [
        "technical_analyst",
        "financial_auditor",
        "valuation_modeler",
        "macro_intelligence",
        "catalyst_detective",
    ]
    session = make_session(experts=experts)
    await repo.create(session)

    await asyncio.gather(
        *(repo.record_expert(session.session_id, e, ExpertOutcome("success", {"who": e}, None, 1.0)) for e in experts)
    )

    got = await repo.get(session.session_id)
    assert got is not None
    assert {e: o.data for e, o in got.expert_outcomes.items()} == {e: {"who": e} for e in experts}
    assert list(got.expert_outcomes) == experts


async def test_list_is_newest_first_filtered_and_paginated(repo: SqlAlchemySessionRepository) -> None:
    a1 = make_session(symbol="600519.SH", minutes=1, status="completed")
    b2 = make_session(symbol="000001.SZ", minutes=2, status="partial")
    a3 = make_session(symbol="600519.SH", minutes=3, status="partial")
    a4 = make_session(symbol="600519.SH", minutes=4, status="failed")
    for s in (a1, b2, a3, a4):
        await repo.create(s)

    everything, total = await repo.list(symbol=None, status=None, limit=10, offset=0)
    assert [s.session_id for s in everything] == [a4.session_id, a3.session_id, b2.session_id, a1.session_id]
    assert total == 4

    by_symbol, total = await repo.list(symbol="600519.sh", status=None, limit=2, offset=0)
    assert [s.session_id for s in by_symbol] == [a4.session_id, a3.session_id]
    assert total == 3
    second_page, total = await repo.list(symbol="600519.SH", status=None, limit=2, offset=2)
    assert [s.session_id for s in second_page] == [a1.session_id]
    assert total == 3

    partial, total = await repo.list(symbol=None, status="partial", limit=10, offset=0)
    assert [s.session_id for s in partial] == [a3.session_id, b2.session_id]
    assert total == 2
    both, total = await repo.list(symbol="600519.SH", status="partial", limit=10, offset=0)
    assert ([s.session_id for s in both], total) == ([a3.session_id], 1)

    beyond, total = await repo.list(symbol=None, status=None, limit=10, offset=10)
    assert (beyond, total) == ([], 4)


async def test_running_sessions_of_a_gone_coordinator_become_interrupted(repo: SqlAlchemySessionRepository) -> None:
    running = make_session(status="running")
    done = make_session(status="completed")
    await repo.create(running)
    await repo.create(done)

    assert repo.owner is not None
    instances = SqlAlchemyInstanceStore(repo._engine, repo._writes)
    assert await instances.interrupt_orphaned_sessions([]) == 0  # its coordinator (this one) is registered
    assert await instances.interrupt_orphaned_sessions([repo.owner]) == 1  # taken for gone
    assert await instances.interrupt_orphaned_sessions([]) == 0

    got_running, got_done = await repo.get(running.session_id), await repo.get(done.session_id)
    assert got_running is not None
    assert got_done is not None
    assert (got_running.status, got_done.status) == ("interrupted", "completed")


async def test_a_session_is_retried_at_most_once(repo: SqlAlchemySessionRepository) -> None:
    source = make_session(status="partial")
    await repo.create(source)
    first = make_session(retried_from=source.session_id, retry_count=1)
    await repo.create(first)

    with pytest.raises(RetryAlreadyStartedError) as in_progress:
        await repo.create(make_session(retried_from=source.session_id, retry_count=1))
    assert in_progress.value.code == "retry_in_progress"
    assert in_progress.value.retry_session_id == first.session_id

    await repo.finish(first.session_id, "completed")
    with pytest.raises(RetryAlreadyStartedError) as done:
        await repo.create(make_session(retried_from=source.session_id, retry_count=1))
    assert done.value.code == "already_retried"

    # The chain goes forward: the retry itself can be retried.
    second = make_session(retried_from=first.session_id, retry_count=2)
    await repo.create(second)
    assert (await repo.list(symbol=None, status=None, limit=10, offset=0))[1] == 3


async def test_a_session_read_back_names_the_session_that_retried_it(repo: SqlAlchemySessionRepository) -> None:
    source = make_session(status="partial")
    await repo.create(source)
    assert (got := await repo.get(source.session_id)) is not None
    assert got.retried_by is None
    retry = make_session(retried_from=source.session_id, retry_count=1)
    await repo.create(retry)

    got_source, got_retry = await repo.get(source.session_id), await repo.get(retry.session_id)
    assert got_source is not None
    assert got_retry is not None
    assert (got_source.retried_by, got_retry.retried_by) == (retry.session_id, None)
    listed = {s.session_id: s.retried_by for s in (await repo.list(symbol=None, status=None, limit=10, offset=0))[0]}
    assert listed == {source.session_id: retry.session_id, retry.session_id: None}


async def test_concurrent_retries_of_one_session_cannot_both_start(
    repo: SqlAlchemySessionRepository, second_repo: SqlAlchemySessionRepository
) -> None:
    source = make_session(status="partial")
    await repo.create(source)
    attempts = [make_session(retried_from=source.session_id, retry_count=1) for _ in range(2)]

    results = await asyncio.gather(repo.create(attempts[0]), second_repo.create(attempts[1]), return_exceptions=True)

    assert sum(r is None for r in results) == 1
    [error] = [r for r in results if r is not None]
    assert isinstance(error, RetryAlreadyStartedError)
    _, total = await repo.list(symbol=None, status=None, limit=10, offset=0)
    assert total == 2


async def test_ping_succeeds_on_a_migrated_store(repo: SqlAlchemySessionRepository) -> None:
    await repo.ping()


# --- stored verdicts (the scorecard's read) ------------------------------------------------------------


async def _verdict_scenario(repository: ISessionRepository) -> dict[str, str]:
    """Sessions of every kind the scorecard's read tells apart; returns their ids by name."""
    sessions = {
        "friday": judged_session(as_of=date(2025, 6, 27), analysis_date=date(2025, 6, 29), minutes=1),
        "no_technical": judged_session(analysis_date=date(2025, 7, 31), minutes=2, engine=LLM_ENGINE),
        "other_symbol": judged_session(
            "000001.SZ", as_of=date(2025, 6, 27), analysis_date=date(2025, 6, 27), minutes=3
        ),
        "undated": judged_session(as_of=date(2026, 2, 13), options={}, minutes=4),  # created 2026-02-13
        "source": judged_session(as_of=date(2025, 6, 27), analysis_date=date(2025, 6, 27), minutes=5),
    }
    sessions["retry"] = judged_session(
        as_of=date(2025, 6, 27), analysis_date=date(2025, 6, 27), minutes=6, retried_from=sessions["source"].session_id
    )
    for session in sessions.values():
        await store(repository, session)
    no_verdict = make_session(symbol="600519.SH", status="failed", minutes=7, analysis_date=date(2025, 6, 27))
    await repository.create(no_verdict)
    return {name: session.session_id for name, session in sessions.items()}


async def _names(repository: ISessionRepository, ids: dict[str, str], where: VerdictFilter, limit: int = 50) -> Any:
    names = {session_id: name for name, session_id in ids.items()}
    found, total = await repository.list_verdicts(where, limit=limit)
    return [names[v.session_id] for v in found], total


@pytest.mark.parametrize("store_kind", ["sql", "in-memory fake"])
async def test_list_verdicts_reads_each_research_once_newest_first_and_filtered(
    repo: SqlAlchemySessionRepository, store_kind: str
) -> None:
    """The SQL store and the in-memory fake the unit tests use answer alike."""
    repository: ISessionRepository = repo if store_kind == "sql" else InMemorySessionRepository()
    ids = await _verdict_scenario(repository)

    everything = await _names(repository, ids, VerdictFilter())
    assert everything == (["retry", "undated", "other_symbol", "no_technical", "friday"], 5)  # no source, no failed
    assert await _names(repository, ids, VerdictFilter(), limit=2) == (["retry", "undated"], 5)
    assert await _names(repository, ids, VerdictFilter(symbol="000001.SZ")) == (["other_symbol"], 1)
    assert await _names(repository, ids, VerdictFilter(engine="qwen-plus")) == (["no_technical"], 1)
    assert (await _names(repository, ids, VerdictFilter(engine="rules")))[1] == 4
    in_june = VerdictFilter(start=date(2025, 6, 1), end=date(2025, 6, 30))
    assert await _names(repository, ids, in_june) == (["retry", "other_symbol", "friday"], 3)
    assert await _names(repository, ids, VerdictFilter(start=date(2025, 6, 28), end=date(2025, 6, 29))) == (
        ["friday"],
        1,
    )
    # a session without an analysis date counts by the day it was created
    assert await _names(repository, ids, VerdictFilter(start=date(2026, 2, 13), end=date(2026, 2, 13))) == (
        ["undated"],
        1,
    )
    assert (await _names(repository, ids, VerdictFilter(end=date(9999, 12, 31))))[1] == 5

    found, _ = await repository.list_verdicts(VerdictFilter(symbol="600519.SH"), limit=50)
    by_id = {v.session_id: v for v in found}
    friday, no_technical, undated = by_id[ids["friday"]], by_id[ids["no_technical"]], by_id[ids["undated"]]
    assert (friday.technical_as_of, friday.analysis_date, friday.entry_day) == (
        date(2025, 6, 27),
        date(2025, 6, 29),
        date(2025, 6, 27),
    )
    assert (no_technical.technical_as_of, no_technical.entry_day) == (None, date(2025, 7, 31))
    assert (undated.analysis_date, undated.research_day) == (None, date(2026, 2, 13))
    assert undated.created_at == datetime(2026, 2, 13, 9, 34, tzinfo=UTC)
    assert friday.verdict["take_profit"]["percent_from_entry"] == 15.0
    assert (friday.engine, no_technical.engine, friday.action, friday.confidence) == ("rules", "qwen-plus", "BUY", 0.66)


async def test_the_client_round_trips_and_filters_the_history(repo: SqlAlchemySessionRepository) -> None:
    alice, bob = make_session(minutes=1), make_session(minutes=2)
    alice.client_id, bob.client_id = "alice", "bob"
    for s in (alice, bob):
        await repo.create(s)

    got = await repo.get(alice.session_id)
    page, total = await repo.list(symbol=None, status=None, limit=10, offset=0, client_id="alice")
    everyone, all_total = await repo.list(symbol=None, status=None, limit=10, offset=0)

    assert got is not None
    assert got.client_id == "alice"
    assert ([s.session_id for s in page], total) == ([alice.session_id], 1)
    assert all_total == 2
    assert {s.client_id for s in everyone} == {"alice", "bob"}


async def test_the_purge_deletes_only_finished_sessions_created_before_the_cutoff(
    repo: SqlAlchemySessionRepository,
) -> None:
    old = make_session(minutes=0, status="completed", outcomes={"technical_analyst": ExpertOutcome("success", RAW)})
    old_running = make_session(minutes=1, status="running")
    old_retried = make_session(minutes=2, status="partial")
    kept_retry = make_session(minutes=20, status="completed", retried_from=old_retried.session_id, retry_count=1)
    recent = make_session(minutes=30, status="failed")
    for s in (old, old_running, old_retried, kept_retry, recent):
        await repo.create(s)
    cutoff = recent.created_at - timedelta(minutes=15)

    deleted = await repo.purge(cutoff)

    assert deleted == 2
    assert await repo.get(old.session_id) is None
    assert await repo.get(old_retried.session_id) is None
    assert await repo.get(old_running.session_id) is not None
    survivor = await repo.get(kept_retry.session_id)
    assert survivor is not None
    assert survivor.retried_from is None
    assert await repo.get(recent.session_id) is not None
    assert await repo.purge(cutoff) == 0
