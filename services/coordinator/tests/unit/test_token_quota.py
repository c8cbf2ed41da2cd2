"""The daily token quota holds each research's budget from its submission (issue 53): concurrent holds never take
more than the quota, in memory and in Redis (two clients of one Redis: two coordinator replicas); a hold's unspent
part is given back when it ends; a batch's items are held all or none. The Redis cases are skipped, saying so,
without a Redis server at 127.0.0.1:6379."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest
from coordinator_fakes import FakeOrchestrator, InMemorySessionRepository

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import AllExpertsFailedError, QueueFullError, TokenQuotaExceededError
from coordinator.domain.model.progress import ExpertFinished, Progress
from coordinator.domain.model.viewer import Viewer
from coordinator.infrastructure.adapters.token_quota_adapter import (
    WINDOW_SECONDS,
    MemoryTokenQuota,
    RedisTokenQuota,
)

QUOTA = 30_000
BUDGET = 10_000
REDIS_URL = "redis://127.0.0.1:6379/13"


def _redis_reachable() -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", 6379)) == 0


needs_redis = pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379")
Quota = MemoryTokenQuota | RedisTokenQuota
Replicas = Callable[[], Quota]
"""Another coordinator's view of the same quota (Redis: another client; memory: the same object)."""


@pytest.fixture(params=[pytest.param("memory"), pytest.param("redis", marks=needs_redis)])
async def replicas(request: pytest.FixtureRequest) -> AsyncIterator[Replicas]:
    if request.param == "memory":
        shared = MemoryTokenQuota(QUOTA)
        yield lambda: shared
    else:
        yield lambda: RedisTokenQuota.from_url(REDIS_URL, QUOTA)


def _client() -> str:
    return f"quota-test-{uuid.uuid4().hex[:12]}"  # its own counts in a shared Redis


async def _used(quota: Quota, client_id: str) -> int:
    return await quota.used(client_id)


async def test_twenty_concurrent_holds_on_two_replicas_take_at_most_the_quota(replicas: Replicas) -> None:
    client_id, quotas = _client(), [replicas(), replicas()]
    refusals = await asyncio.gather(*(quotas[i % 2].reserve(client_id, {f"session-{i}": BUDGET}) for i in range(20)))
    held = [r for r in refusals if r is None]
    assert len(held) == QUOTA // BUDGET
    for refusal in (r for r in refusals if r is not None):
        detail, retry_after = refusal
        assert "token quota" in detail
        assert 0 < retry_after <= WINDOW_SECONDS
    assert await _used(quotas[0], client_id) == QUOTA


async def test_settling_gives_back_what_a_research_did_not_spend(replicas: Replicas) -> None:
    quota, client_id = replicas(), _client()
    for i in range(3):
        assert await quota.reserve(client_id, {f"s{i}": BUDGET}) is None
    assert await quota.reserve(client_id, {"s3": BUDGET}) is not None  # all held

    await quota.settle(client_id, "s0", 4_000)  # spent 4,000 of its 10,000

    assert await _used(quota, client_id) == 2 * BUDGET + 4_000
    assert await quota.reserve(client_id, {"s3": 6_000}) is None  # what s0 gave back
    assert await quota.reserve(client_id, {"s4": 1}) is not None


async def test_a_hold_settles_once_and_an_unknown_hold_counts_only_what_was_spent(replicas: Replicas) -> None:
    quota, client_id = replicas(), _client()
    assert await quota.reserve(client_id, {"s": BUDGET}) is None
    await quota.settle(client_id, "s", 0)  # released (cancelled while queued)
    await quota.settle(client_id, "s", 0)  # again: nothing more given back
    assert await _used(quota, client_id) == 0
    await quota.settle(client_id, "s", 2_500)  # a run that started meanwhile: its spending counts
    await quota.settle(client_id, "held-yesterday", 1_000)  # its hold went with its window
    assert await _used(quota, client_id) == 3_500


async def test_a_batch_is_held_all_or_none(replicas: Replicas) -> None:
    quota, client_id = replicas(), _client()
    assert await quota.reserve(client_id, {"a": BUDGET}) is None
    three_items = {f"item-{i}": BUDGET for i in range(3)}
    assert await quota.reserve(client_id, three_items) is not None  # 40,000 > 30,000: none held
    assert await _used(quota, client_id) == BUDGET
    two_items = {f"item-{i}": BUDGET for i in range(2)}
    assert await quota.reserve(client_id, two_items) is None
    for item, spent in (("item-0", 1_000), ("item-1", 0)):  # each item settles as its chunk ends
        await quota.settle(client_id, item, spent)
    assert await _used(quota, client_id) == BUDGET + 1_000


async def test_the_window_resets_24_hours_after_the_first_hold() -> None:
    now = [1000.0]
    quota, client_id = MemoryTokenQuota(QUOTA, clock=lambda: now[0]), _client()
    assert await quota.reserve(client_id, {"s": QUOTA}) is None
    refused = await quota.reserve(client_id, {"t": 1})
    assert refused is not None
    assert refused[1] == WINDOW_SECONDS
    now[0] += WINDOW_SECONDS
    assert await quota.reserve(client_id, {"t": QUOTA}) is None
    await quota.settle(client_id, "s", 500)  # held in the window before: only its spending counts now
    assert await quota.used(client_id) == QUOTA + 500


@needs_redis
async def test_redis_unavailable_serves_the_research() -> None:
    quota = RedisTokenQuota.from_url("redis://127.0.0.1:1/0", QUOTA)  # nothing listens there
    assert await quota.reserve(_client(), {"s": QUOTA * 2}) is None
    await quota.settle(_client(), "s", 10)


class SpendingOrchestrator(FakeOrchestrator):
    """Every expert reports ``spent`` tokens; each run waits for ``go`` first."""

    def __init__(self, spent: int) -> None:
        super().__init__()
        self.spent = spent
        self.go = asyncio.Event()
        self.started = 0

    async def stream(
        self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
    ) -> AsyncIterator[Progress]:
        self.started += 1
        await self.go.wait()
        async for progress in super().stream(request):
            if isinstance(progress, ExpertFinished) and progress.outcome.data is not None:
                usage = {"llm_calls": 1, "input_tokens": self.spent, "output_tokens": 0, "model": "m"}
                progress = ExpertFinished(
                    progress.expert, replace(progress.outcome, data={**progress.outcome.data, "usage": usage})
                )
            yield progress


def _service(
    orchestrator: FakeOrchestrator, quota: MemoryTokenQuota, **job_settings: Any
) -> tuple[ResearchOrchestrationService, InMemorySessionRepository, ResearchJobs]:
    store = InMemorySessionRepository()
    accounting = UsageAccounting(store, quota=quota, reservation=BUDGET)
    settings = JobSettings(poll_seconds=0.01, **job_settings)
    jobs = ResearchJobs(orchestrator, store, store, owner="test", settings=settings, accounting=accounting)
    return ResearchOrchestrationService(jobs, store, store, accounting=accounting), store, jobs


ONE_EXPERT = ResearchCommand(symbol="600519.SH", experts=["technical_analyst"], client_id="alice")


async def test_twenty_concurrent_submissions_hold_the_quota_and_give_back_what_they_did_not_spend() -> None:
    quota = MemoryTokenQuota(QUOTA)
    orchestrator = SpendingOrchestrator(spent=4_000)
    service, store, jobs = _service(orchestrator, quota, concurrency=20)

    answers = await asyncio.gather(*(service.submit(ONE_EXPERT) for _ in range(20)), return_exceptions=True)

    accepted = [a for a in answers if not isinstance(a, BaseException)]
    refused = [a for a in answers if isinstance(a, TokenQuotaExceededError)]
    assert (len(accepted), len(refused)) == (3, 17)
    assert all(r.retry_after_seconds > 0 for r in refused)
    assert {s.token_budget for s in store.sessions.values()} == {BUDGET}  # the reservation is each one's budget
    assert await quota.used("alice") == QUOTA
    orchestrator.go.set()
    async with asyncio.timeout(5):
        await asyncio.gather(*(jobs.result(a.session_id) for a in accepted), return_exceptions=True)
    assert all(s.status == "completed" for s in store.sessions.values())
    assert await quota.used("alice") == 3 * 4_000  # each gave back the 6,000 it did not spend
    assert await _quota_settled(quota, "alice")


async def _quota_settled(quota: MemoryTokenQuota, client_id: str) -> bool:
    return not quota._days[client_id].holds


async def test_a_research_cancelled_while_queued_and_one_not_queued_give_their_hold_back() -> None:
    quota = MemoryTokenQuota(QUOTA)
    orchestrator = SpendingOrchestrator(spent=4_000)
    service, _, _ = _service(orchestrator, quota, concurrency=1, queue_limit=1)
    running = await service.submit(ONE_EXPERT)
    queued = await service.submit(ONE_EXPERT)
    with pytest.raises(QueueFullError):
        await service.submit(ONE_EXPERT)
    assert await quota.used("alice") == 2 * BUDGET  # the refused one holds nothing

    await service.cancel(queued.session_id, Viewer("alice"))
    assert await quota.used("alice") == BUDGET
    await service.cancel(running.session_id, Viewer("alice"))  # cancelled before any call: spent nothing
    assert await quota.used("alice") == 0
    assert await _quota_settled(quota, "alice")


@pytest.mark.parametrize("status", ["completed", "failed"])
async def test_every_end_of_a_run_settles_its_hold(status: str) -> None:
    quota = MemoryTokenQuota(QUOTA)
    orchestrator = SpendingOrchestrator(spent=4_000)
    orchestrator.overall_status = status
    orchestrator.go.set()
    service, _, _ = _service(orchestrator, quota)
    with contextlib.suppress(AllExpertsFailedError):
        await service.execute(ONE_EXPERT)
    assert await quota.used("alice") == (4_000 if status == "completed" else 0)
    assert await _quota_settled(quota, "alice")


def test_with_a_quota_every_research_has_a_budget_it_holds() -> None:
    store = InMemorySessionRepository()
    accounting = UsageAccounting(store, quota=MemoryTokenQuota(QUOTA), reservation=BUDGET)
    assert accounting.budget_of(None, None) == BUDGET  # RESEARCH_TOKEN_RESERVATION
    assert accounting.budget_of(None, 2_000) == 2_000  # the lower of the budgets given
    assert accounting.budget_of(50_000, 40_000) == QUOTA  # never more than the whole quota
    assert UsageAccounting(store).budget_of(None, None) is None  # no quota: no budget unless given
