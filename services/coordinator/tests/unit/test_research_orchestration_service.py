"""ResearchOrchestrationService runs every research inside a stored session."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    FakeOrchestrator,
    InMemorySessionRepository,
    research_service,
)

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import AllExpertsFailedError, SessionFinishedError
from coordinator.domain.model.progress import ExpertStarted, Progress
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
COMMAND = ResearchCommand(symbol="600519.SH", experts=["technical_analyst", "macro_intelligence"], request_id="rid-1")


async def test_the_session_is_created_before_the_run_and_finished_after() -> None:
    sessions = InMemorySessionRepository()
    seen_at_run: list[str] = []

    class Probe(FakeOrchestrator):
        async def stream(
            self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
        ) -> AsyncIterator[Progress]:
            [stored] = sessions.sessions.values()
            seen_at_run.append(stored.status)
            async for progress in super().stream(request):
                yield progress

    result = await research_service(Probe(), sessions).execute(COMMAND)
    assert seen_at_run == ["running"]
    assert UUID.match(result.session_id)
    assert result.retry_count == 0
    stored = sessions.sessions[result.session_id]
    assert stored.status == "completed"
    assert stored.request_id == "rid-1"
    assert stored.experts == ["technical_analyst", "macro_intelligence"]
    assert set(stored.expert_outcomes) == {"technical_analyst", "macro_intelligence"}


async def test_each_stage_is_committed_as_it_finishes() -> None:
    sessions = InMemorySessionRepository()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    result = await research_service(orchestrator, sessions).execute(COMMAND)
    assert list(sessions.sessions) == [result.session_id]
    assert [op for op, _ in sessions.log] == [
        "create",
        "record_expert",
        "record_expert",
        "record_debate",
        "record_verdict",
        "finish",
    ]
    stored = sessions.sessions[result.session_id]
    assert stored.debate.status == "success"
    assert stored.debate_outcome is not None
    assert stored.judge.status == "success"
    assert stored.verdict is not None
    assert stored.options["technical_analyst"]["analysis_date"]  # the resolved default is stored


async def test_all_experts_failing_finishes_the_session_then_raises_with_the_result() -> None:
    sessions = InMemorySessionRepository()
    with pytest.raises(AllExpertsFailedError) as caught:
        await research_service(FakeOrchestrator("failed"), sessions).execute(COMMAND)
    result = caught.value.result
    assert caught.value.code == "all_experts_failed"
    assert result.overall_status == "failed"
    assert all(i.error == "boom" for i in result.expert_results)
    assert sessions.sessions[result.session_id].status == "failed"


async def test_a_broken_run_marks_the_session_failed_and_propagates() -> None:
    class Exploding(IResearchOrchestrationPort):
        async def stream(
            self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
        ) -> AsyncIterator[Progress]:
            yield ExpertStarted(request.experts[0].value)
            raise RuntimeError("graph bug")

    sessions = InMemorySessionRepository()
    with pytest.raises(RuntimeError, match="graph bug"):
        await research_service(Exploding(), sessions).execute(COMMAND)
    [stored] = sessions.sessions.values()
    assert stored.status == "failed"


async def test_a_store_down_at_create_runs_nothing() -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(RuntimeError, match="store down"):
        await research_service(orchestrator, InMemorySessionRepository(fail_on="create")).execute(COMMAND)
    assert orchestrator.requests == []


async def test_a_research_cancelled_during_the_debate_keeps_its_experts() -> None:
    debate_called, debate_cancelled = asyncio.Event(), asyncio.Event()

    class DebateThatHangs(FakeDebateGateway):
        async def run_debate(self, symbol: str, expert_results: dict[str, Any], **asked: Any) -> dict[str, Any]:
            debate_called.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                debate_cancelled.set()
                raise
            raise AssertionError("unreachable")

    sessions = InMemorySessionRepository()
    judge = FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), DebateThatHangs(), judge)
    # A stage's start is written 5 s after it unless something is written first.
    service = research_service(orchestrator, sessions, settings=JobSettings(poll_seconds=0.01, start_events_seconds=5))
    waiter = asyncio.create_task(service.execute(COMMAND))
    async with asyncio.timeout(5):
        await debate_called.wait()
    await asyncio.sleep(0.05)  # the debate's start reaches the job through the graph's stream
    [session_id] = sessions.sessions
    cancelled = await service.cancel(session_id, Viewer("local", sees_all=True))
    assert cancelled.status == "cancelled"
    assert debate_cancelled.is_set()  # the in-flight peer call was cancelled
    with pytest.raises(SessionFinishedError):
        await waiter
    stored = sessions.sessions[session_id]
    assert set(stored.expert_outcomes) == {"technical_analyst", "macro_intelligence"}
    assert judge.calls == []
    # The debate's start, not written yet, is written with the end, before it.
    assert [e.type for e in sessions.events[session_id]][-2:] == ["debate.started", "session.cancelled"]
    again = await service.cancel(session_id, Viewer("local", sees_all=True))  # idempotent
    assert again.status == "cancelled"


async def test_a_finished_session_cannot_be_cancelled() -> None:
    sessions = InMemorySessionRepository()
    service = research_service(FakeOrchestrator(), sessions)
    result = await service.execute(COMMAND)
    with pytest.raises(SessionFinishedError) as caught:
        await service.cancel(result.session_id, Viewer("local", sees_all=True))
    assert caught.value.code == "session_finished"


async def test_a_waiter_that_goes_away_does_not_stop_the_research() -> None:
    sessions = InMemorySessionRepository()
    service = research_service(
        LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway()), sessions
    )
    waiter = asyncio.create_task(service.execute(COMMAND))
    await asyncio.sleep(0)
    waiter.cancel()
    for _ in range(200):
        if sessions.sessions and next(iter(sessions.sessions.values())).status == "completed":
            break
        await asyncio.sleep(0.01)
    [stored] = sessions.sessions.values()
    assert stored.status == "completed"
    types = [e.type for e in sessions.events[stored.session_id]]
    assert types[:2] == ["session.queued", "session.started"]
    assert types[-3:] == ["verdict.started", "verdict.completed", "session.completed"]


async def test_a_research_silent_for_stall_seconds_reports_it_stalled() -> None:
    release = asyncio.Event()

    class SlowExpert(FakeExpertGateway):
        async def run_expert(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            await release.wait()
            return await super().run_expert(*args, **kwargs)

    sessions = InMemorySessionRepository()
    orchestrator = LangGraphResearchOrchestrator(SlowExpert(), FakeDebateGateway(), FakeJudgeGateway())
    service = research_service(orchestrator, sessions, settings=JobSettings(poll_seconds=0.01, stall_seconds=0.1))
    waiter = asyncio.create_task(service.execute(COMMAND))
    for _ in range(500):
        if any(e.type == "session.stalled" for events in sessions.events.values() for e in events):
            break
        await asyncio.sleep(0.01)
    release.set()
    result = await waiter
    types = [e.type for e in sessions.events[result.session_id]]
    assert "session.stalled" in types
    assert types.index("session.stalled") < types.index("expert.completed")
    assert types[-1] == "session.completed"


def test_a_result_rebuilt_from_the_store_keeps_the_client_side_refusal() -> None:
    from coordinator.application.services.research_orchestration_service import result_of
    from coordinator.domain.dtos.research_dtos import ExpertFailure
    from coordinator.domain.exceptions import AllExpertsFailedError
    from coordinator.domain.model.session import ExpertOutcome, ResearchSession
    from shared_contracts.errors import DataUnavailableError

    refused = "research 404 data_unavailable: the offline snapshot has no financial statements for AAPL"
    session = ResearchSession("s-1", "AAPL", ["financial_auditor"], {}, False, None, status="failed")
    failure = ExpertFailure(status=404, code="data_unavailable")
    session.expert_outcomes = {"financial_auditor": ExpertOutcome("failed", None, refused, failure=failure)}

    error = AllExpertsFailedError.for_result(result_of(session))

    assert error.reason is DataUnavailableError  # a 404 for the client, as the run that made it answered
    session.expert_outcomes = {"financial_auditor": ExpertOutcome("failed", None, "research 504 peer_timeout: slow")}
    assert AllExpertsFailedError.for_result(result_of(session)).reason is None


async def test_a_finished_job_asks_for_the_next_session_only_when_one_may_be_waiting() -> None:
    class CountingStore(InMemorySessionRepository):
        claims = 0  # asked for by the claim loop (a submission that claims its own is not counted)
        enqueuing = False

        async def enqueue(self, *args: Any, **kwargs: Any) -> Any:
            self.enqueuing = True
            try:
                return await super().enqueue(*args, **kwargs)
            finally:
                self.enqueuing = False

        async def claim_next(self, started: Any = None) -> Any:
            self.claims += int(not self.enqueuing)
            return await super().claim_next(started)

    class HeldOrchestrator(FakeOrchestrator):
        def __init__(self) -> None:
            super().__init__()
            self.release = asyncio.Event()

        async def stream(self, request: ResearchRequest, **kwargs: Any) -> AsyncIterator[Progress]:
            await self.release.wait()
            async for progress in super().stream(request, **kwargs):
                yield progress

    store, orchestrator = CountingStore(), HeldOrchestrator()
    # One slot, and a poll too slow to matter: only a finished job or a submission wakes the claims.
    service = research_service(orchestrator, store, settings=JobSettings(concurrency=1, poll_seconds=60))
    first = asyncio.create_task(service.execute(COMMAND))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(service.execute(COMMAND))  # waits in the queue
    await asyncio.sleep(0.05)
    orchestrator.release.set()
    async with asyncio.timeout(5):
        await asyncio.gather(first, second)  # the waiting one was claimed as soon as the first ended
    await asyncio.sleep(0.05)
    before = store.claims
    await service.execute(COMMAND)  # alone: it claims itself as it is submitted
    await asyncio.sleep(0.05)
    assert store.claims == before  # and its end asks the store for nothing: the queue was seen empty
    assert {s.status for s in store.sessions.values()} == {"completed"}


async def test_a_research_cancelled_during_the_verdict_settles_what_its_debate_spent() -> None:
    judge_called = asyncio.Event()

    class DebateThatSpends(FakeDebateGateway):
        async def run_debate(self, symbol: str, expert_results: dict[str, Any], **asked: Any) -> dict[str, Any]:
            outcome = await super().run_debate(symbol, expert_results, **asked)
            return {**outcome, "usage": {"llm_calls": 3, "input_tokens": 900, "output_tokens": 300, "model": "m"}}

    class JudgeThatHangs(FakeJudgeGateway):
        async def run_verdict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            judge_called.set()
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    store = InMemorySessionRepository()
    accounting = UsageAccounting(store)
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), DebateThatSpends(), JudgeThatHangs())
    jobs = ResearchJobs(
        orchestrator, store, store, owner="test", settings=JobSettings(poll_seconds=0.01), accounting=accounting
    )
    service = ResearchOrchestrationService(jobs, store, store, accounting=accounting)
    waiter = asyncio.create_task(service.execute(COMMAND))
    async with asyncio.timeout(5):
        await judge_called.wait()
    [session_id] = store.sessions
    await service.cancel(session_id, Viewer("local", sees_all=True))
    with pytest.raises(SessionFinishedError):
        await waiter
    settled = store.usage_records[(session_id, "debate")]  # the calls made before the cancel are in the ledger
    assert (settled.usage.llm_calls, settled.usage.tokens) == (3, 1200)
