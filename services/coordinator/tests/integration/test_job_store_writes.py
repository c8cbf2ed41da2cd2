"""The job store's guarantees on SQLite and the local PostgreSQL: two racing submissions with one
``Idempotency-Key`` make one session (the store's unique index decides the race); a stage's outcome and its event
are one transaction; a refused expert's failure is stored as the research service stated it; on PostgreSQL a
subscriber hears another coordinator's events through LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import date, datetime

import pytest
from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway
from coordinator_persistence_fakes import local_postgres_database, make_session, repository_on

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.application.services.research_orchestration_service import (
    ResearchOrchestrationService,
    Submission,
    result_of,
)
from coordinator.application.services.session_event_feed import SessionEventFeed
from coordinator.domain.dtos.research_dtos import ExpertFailure
from coordinator.domain.exceptions import IdempotencyKeyReusedError
from coordinator.domain.model.events import NewEvent, terminal_event
from coordinator.domain.model.session import ExpertOutcome, ResearchSession
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator
from coordinator.infrastructure.persistence.event_notifications import listen_for_events
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store

COMMAND = ResearchCommand(symbol="600519.SH", experts=["technical_analyst", "macro_intelligence"])


@pytest.fixture
async def store(fresh_url: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    sessions, close = await open_session_store(fresh_url)
    try:
        yield sessions
    finally:
        await close()


def racing(store: SqlAlchemySessionRepository, racers: int) -> None:
    """The first ``racers`` look-ups of an earlier key all answer before any of them stores its session."""
    barrier, looked_up, find = asyncio.Barrier(racers), [0], store.find_idempotent

    async def find_together(client_id: str, key: str, since: datetime) -> ResearchSession | None:
        found = await find(client_id, key, since)
        looked_up[0] += 1
        if looked_up[0] <= racers:
            await barrier.wait()
        return found

    store.find_idempotent = find_together  # type: ignore[method-assign]


async def submit_together(store: SqlAlchemySessionRepository, *commands: ResearchCommand) -> list[object]:
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    jobs = ResearchJobs(orchestrator, store, store, owner="racer", settings=JobSettings(poll_seconds=0.05))
    service = ResearchOrchestrationService(jobs, store, store)
    racing(store, len(commands))
    try:
        return await asyncio.gather(*(service.submit(c, "same-key") for c in commands), return_exceptions=True)
    finally:
        await jobs.stop()


async def test_racing_submissions_with_one_key_and_body_make_one_session(
    store: SqlAlchemySessionRepository,
) -> None:
    first, second = await submit_together(store, COMMAND, COMMAND)
    assert isinstance(first, Submission), first
    assert isinstance(second, Submission), second
    assert first.session_id == second.session_id
    assert sorted([first.created, second.created]) == [False, True]
    assert (await store.list(symbol=None, status=None, limit=10, offset=0))[1] == 1


async def test_racing_submissions_with_one_key_and_other_bodies_refuse_the_second(
    store: SqlAlchemySessionRepository,
) -> None:
    other = ResearchCommand(symbol="600519.SH", experts=["technical_analyst"])
    outcomes = await submit_together(store, COMMAND, other)
    made = [o for o in outcomes if isinstance(o, Submission)]
    refused = [o for o in outcomes if isinstance(o, IdempotencyKeyReusedError)]
    assert len(made) == 1, outcomes
    assert len(refused) == 1, outcomes
    assert refused[0].problem_extra == {"session_id": made[0].session_id}
    assert (await store.list(symbol=None, status=None, limit=10, offset=0))[1] == 1


async def test_a_stage_and_its_event_are_written_together_or_not_at_all(store: SqlAlchemySessionRepository) -> None:
    session = make_session()
    await store.create(session)
    done = ExpertOutcome("success", {"signal": "BULLISH"}, None, 5.0)
    await store.record_expert(session.session_id, "technical_analyst", done, [NewEvent("expert.completed", {})])
    unstorable = [NewEvent("expert.completed", {"not json": object()})]
    with pytest.raises(Exception):  # noqa: B017, PT011  # the driver's own error for an unserialisable value
        await store.record_expert(session.session_id, "macro_intelligence", done, unstorable)
    stored = await store.get(session.session_id)
    events = await store.events_after(session.session_id, 0)
    assert stored is not None
    assert list(stored.expert_outcomes) == ["technical_analyst"]
    assert [(e.seq, e.type) for e in events] == [(1, "expert.completed")]


async def test_a_refused_experts_failure_is_stored_and_read_back(store: SqlAlchemySessionRepository) -> None:
    session = make_session(status="running")
    await store.create(session)
    failure = ExpertFailure(status=422, code="insufficient_history", earliest_usable_date=date(2021, 3, 1))
    refused = ExpertOutcome("failed", None, "research 422 insufficient_history: too little data", 3.0, 1, failure)
    await store.record_expert(session.session_id, "technical_analyst", refused)
    await store.record_expert(session.session_id, "macro_intelligence", ExpertOutcome("failed", None, "timed out"))
    await store.finish(session.session_id, "failed")
    stored = await store.get(session.session_id)
    assert stored is not None
    assert stored.expert_outcomes["technical_analyst"].failure == failure
    assert stored.expert_outcomes["macro_intelligence"].failure is None
    assert [item.failure for item in result_of(stored).expert_results] == [failure, None]


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with local_postgres_database() as url:
        yield url


@pytest.mark.postgres
async def test_on_postgresql_a_subscriber_hears_another_coordinators_events_at_once(postgres_url: str) -> None:
    """The feed polls every 30 s here: the events arrive within a second only through LISTEN/NOTIFY."""
    here, close = await open_session_store(postgres_url)
    feed = SessionEventFeed(here, poll_seconds=30)
    session = make_session()
    try:
        async with listen_for_events(postgres_url, feed.wake), repository_on(postgres_url) as elsewhere:
            await here.create(session)
            followed: asyncio.Queue[str] = asyncio.Queue()

            async def follow() -> None:
                async for event in feed.follow(session.session_id, 0):
                    followed.put_nowait(event.type)

            following = asyncio.create_task(follow())
            await asyncio.sleep(0.2)  # subscribed: its history (none) read, its reader waiting
            await elsewhere.append_events(session.session_id, [NewEvent("expert.started", {})])
            first = await asyncio.wait_for(followed.get(), 2)
            await elsewhere.end(session.session_id, "completed", [terminal_event("completed")])
            last = await asyncio.wait_for(followed.get(), 2)
            await asyncio.wait_for(following, 2)
    finally:
        await close()
    assert (first, last) == ("expert.started", "session.completed")


def _of(client_id: str, minutes: int) -> ResearchSession:
    session = make_session(status="queued", minutes=minutes)
    session.client_id = client_id
    return session


async def test_the_queue_is_shared_among_clients_and_claimed_in_turn(store: SqlAlchemySessionRepository) -> None:
    """A client alone may fill the queue (limit 4); another is still admitted up to its share (4 // 2), the first is
    refused until it is below its own; claims interleave the clients, each position counts the client's own."""
    alice = [await store.enqueue(_of("alice", m), queue_limit=4) for m in range(5)]
    bob = [await store.enqueue(_of("bob", 10 + m), queue_limit=4) for m in range(3)]
    assert [e.position for e in alice] == [1, 2, 3, 4, 0]  # the fifth is beyond alice's share
    assert [e.position for e in bob] == [1, 2, 0]  # two of four: bob's share with alice waiting
    queued = await store.queued()
    positions = [await store.queue_position(i) for i in queued]
    assert positions == [1, 2, 3, 4, 1, 2]

    claimed = [await store.claim_next() for _ in range(6)]
    clients = [c.client_id for c in claimed if c is not None]
    assert clients == ["alice", "bob", "alice", "bob", "alice", "alice"]
    assert await store.queue_position(queued[0]) is None  # running now
