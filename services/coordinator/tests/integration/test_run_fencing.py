"""A run is fenced by its claim: when a coordinator is taken for gone (the instance lease's sweep queues its session
again) while its run goes on, and the session is claimed anew — by another coordinator or by itself — the old run
is stopped within ``poll_seconds`` (its in-flight peer calls cancelled with it) and writes nothing: no terminal
event, no deleted checkpoint. On SQLite and the local PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace

import pytest
from coordinator_persistence_fakes import make_session

from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.model.progress import Progress
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.ports.job_store import Started
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.instances import SqlAlchemyInstanceStore
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store

POLL = 0.05


class HeldRuns(IResearchOrchestrationPort):
    """Every run waits on its peer until cancelled; records the runs, the cancelled ones and the forgotten ids."""

    def __init__(self) -> None:
        self.runs: list[tuple[str | None, bool]] = []
        self.cancelled: list[str | None] = []
        self.forgotten: list[str] = []
        self.running = asyncio.Event()
        self.stopped = asyncio.Event()

    async def stream(
        self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
    ) -> AsyncGenerator[Progress]:
        self.runs.append((run_id, resume))
        self.running.set()
        try:
            await asyncio.Event().wait()  # a peer call that has not answered
        except asyncio.CancelledError:
            self.cancelled.append(run_id)
            self.stopped.set()
            raise
        yield  # pragma: no cover — an async generator that never yields

    async def forget(self, run_id: str) -> None:
        self.forgotten.append(run_id)


@pytest.fixture
async def stores(fresh_url: str) -> AsyncIterator[tuple[str, SqlAlchemySessionRepository, SqlAlchemySessionRepository]]:
    first, close_first = await open_session_store(fresh_url)
    second, close_second = await open_session_store(fresh_url)
    try:
        yield fresh_url, first, second
    finally:
        await close_second()
        await close_first()


async def _never(started: Started | None = None) -> ResearchSession | None:
    return None


def _jobs(orchestrator: HeldRuns, store: SqlAlchemySessionRepository, concurrency: int) -> ResearchJobs:
    assert store.owner is not None
    settings = JobSettings(concurrency=concurrency, poll_seconds=POLL)
    return ResearchJobs(orchestrator, store, store, owner=store.owner, settings=settings, resumable=True)


async def _taken_for_gone(url: str, owner: str) -> None:
    """What another replica's sweep does to a coordinator whose lease it finds expired."""
    engine = build_engine(url)
    try:
        await SqlAlchemyInstanceStore(engine).interrupt_orphaned_sessions([owner])
    finally:
        await engine.dispose()


async def _until(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), 5)


async def test_a_run_whose_session_another_coordinator_claimed_stops_and_writes_nothing(
    stores: tuple[str, SqlAlchemySessionRepository, SqlAlchemySessionRepository],
) -> None:
    url, here, there = stores
    old = HeldRuns()
    stalled = _jobs(old, here, concurrency=1)
    here.claim_next = _never  # type: ignore[method-assign]  # it is stalled: it will not take the session back
    try:
        await stalled.submit(replace(make_session(status="queued"), session_id="fenced-1"))
        await _until(old.running)
        assert here.owner is not None

        await _taken_for_gone(url, here.owner)
        claimed = await there.claim_next()  # the other coordinator takes it
        assert claimed is not None
        assert (claimed.session_id, claimed.resume_count) == ("fenced-1", 1)
        await _until(old.stopped)
        await asyncio.sleep(POLL * 4)

        assert old.cancelled == ["fenced-1"]
        assert old.runs == [("fenced-1", False)]
        assert old.forgotten == []  # the checkpoint the new run resumes from is kept
        claim = (await there.claims(["fenced-1"]))["fenced-1"]
        assert (claim.status, claim.here, claim.resume_count) == ("running", True, 1)
        assert [e.type for e in await there.events_after("fenced-1", 0)] == ["session.queued", "session.started"]
    finally:
        await stalled.stop()


async def test_a_run_whose_session_its_own_coordinator_claimed_anew_gives_way_to_the_new_run(
    stores: tuple[str, SqlAlchemySessionRepository, SqlAlchemySessionRepository],
) -> None:
    url, here, _ = stores
    runs = HeldRuns()
    jobs = _jobs(runs, here, concurrency=2)
    try:
        await jobs.submit(replace(make_session(status="queued"), session_id="fenced-2"))
        await _until(runs.running)
        assert here.owner is not None

        await _taken_for_gone(url, here.owner)  # it was taken for gone; its claims take the session back

        await _until(runs.stopped)
        await asyncio.sleep(POLL * 4)
        assert runs.runs == [("fenced-2", False), ("fenced-2", True)]
        assert runs.cancelled == ["fenced-2"]  # the old one only
        assert runs.forgotten == []
        events = [e.type for e in await here.events_after("fenced-2", 0)]
        assert events == ["session.queued", "session.started", "session.resumed"]
    finally:
        await jobs.stop()
