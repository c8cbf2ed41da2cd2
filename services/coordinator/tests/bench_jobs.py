"""The job path's cost, on a real store and LangGraph's checkpointer (SQLite files in a new temporary directory,
or the PostgreSQL database ``--database-url`` names), with gateways that answer at once (rules mode without the
peers' own work), in one process:

1. paired, alternating: a research run directly (the graph's stream, each stage committed to the session: what a
   research costs without the job) against the same research as a job (stored queued, claimed, checkpointed, its
   events appended, its terminal event, the result handed back): the job's overhead per research, p50 and p95;
2. ``--burst`` concurrent asynchronous submissions: time until each one's first event is stored and read back (what
   a subscriber reads first), p50/p95, and until all have completed;
3. ``--subscribers`` followers of one running session's events for ``--seconds``: the process's CPU per second
   (they share the session's one reader), then how long until every follower has the run's last event.

Run: ``uv run python services/coordinator/tests/bench_jobs.py [--rounds 100] [--burst 100] [--subscribers 200]
[--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/bench_jobs]`` (beside the tests' fakes it uses,
``coordinator_fakes.py``; PostgreSQL: an existing database, which the bench fills with its sessions). Wall-clock
figures on a shared machine: compare the two columns of one run, not runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid

from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.research_jobs import JobSettings, ResearchJobs, request_of
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.services.session_event_feed import SessionEventFeed
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.progress import ExpertFinished, StageFinished
from coordinator.domain.model.session import ResearchSession
from coordinator.infrastructure.orchestration.checkpointer import open_checkpointer
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator
from coordinator.infrastructure.persistence.store import open_session_store
from service_kit.logging import configure_logging
from verdict_statistics.quantiles import percentile

COMMAND = ResearchCommand(symbol="600519.SH", experts=[e.value for e in ExpertType])


async def main(args: argparse.Namespace) -> None:
    url = args.database_url or f"sqlite+aiosqlite:///{tempfile.mkdtemp(prefix='bench-jobs-')}/coordinator.db"
    sessions, close = await open_session_store(url)
    async with open_checkpointer(url) as checkpointer:
        plain = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
        durable = LangGraphResearchOrchestrator(
            FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway(), checkpointer=checkpointer
        )
        settings = JobSettings(concurrency=8, queue_limit=10_000, poll_seconds=0.05)
        jobs = ResearchJobs(
            durable, sessions, sessions, owner=sessions.owner or "bench", settings=settings, resumable=True
        )
        service = ResearchOrchestrationService(jobs, sessions, sessions)
        jobs.start()

        async def direct() -> None:
            """Today's shape of a research: its session stored running, the graph's stages committed as they end."""
            fresh = ResearchSession(str(uuid.uuid4()), "600519.SH", list(COMMAND.experts or []), {}, False)
            await sessions.create(fresh)
            async for progress in plain.stream(request_of(fresh)):
                if isinstance(progress, ExpertFinished):
                    await sessions.record_expert(fresh.session_id, progress.expert, progress.outcome)
                elif isinstance(progress, StageFinished):
                    record = sessions.record_debate if progress.stage == "debate" else sessions.record_verdict
                    await record(fresh.session_id, progress.outcome)
            await sessions.finish(fresh.session_id, "completed")

        for _ in range(10):  # warm-up: graphs compiled, connections open
            await direct()
            await service.execute(COMMAND)
        plain_ms, job_ms = [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            await direct()
            plain_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await service.execute(COMMAND)
            job_ms.append((time.perf_counter() - started) * 1000)
        overhead = [j - p for j, p in zip(job_ms, plain_ms, strict=True)]
        figures = {
            "direct_p50_ms": statistics.median(plain_ms),
            "job_p50_ms": statistics.median(job_ms),
            "overhead_p50_ms": statistics.median(overhead),
            "overhead_p95_ms": percentile(overhead, 0.95),
        }
        print(
            f"paired x{args.rounds}: direct p50 {statistics.median(plain_ms):.1f} ms, "
            f"job p50 {statistics.median(job_ms):.1f} ms, "
            f"overhead p50 {statistics.median(overhead):+.1f} ms p95 {percentile(overhead, 0.95):+.1f} ms"
        )

        first: list[float] = []

        async def submit_and_wait_for_first_event() -> str:
            started = time.perf_counter()
            submitted = await service.submit(COMMAND)
            # The submission's transaction stores its session.queued: one read finds it (no polling loop, whose
            # 100 readers would be most of what is measured).
            assert await sessions.events_after(submitted.session_id, 0, limit=1)
            first.append((time.perf_counter() - started) * 1000)
            return submitted.session_id

        burst_started = time.perf_counter()
        ids = await asyncio.gather(*(submit_and_wait_for_first_event() for _ in range(args.burst)))
        while (  # noqa: ASYNC110  # what is measured is the store's view
            (await sessions.queued())
            or len(await sessions.statuses(ids)) != len(ids)
            or any(s in ("queued", "running") for s in (await sessions.statuses(ids)).values())
        ):
            await asyncio.sleep(0.05)
        all_done = time.perf_counter() - burst_started
        figures |= {
            "burst": args.burst,
            "first_event_p50_ms": statistics.median(first),
            "first_event_p95_ms": percentile(first, 0.95),
            "all_done_s": all_done,
        }
        print(
            f"burst of {args.burst} async submissions: first event p50 {statistics.median(first):.1f} ms, "
            f"p95 {percentile(first, 0.95):.1f} ms; all completed in {all_done:.1f} s"
        )

        gate = asyncio.Event()

        class Held(FakeExpertGateway):
            async def run_expert(self, *a, **k):  # type: ignore[no-untyped-def]
                await gate.wait()
                return await super().run_expert(*a, **k)

        feed = SessionEventFeed(sessions, poll_seconds=0.5)
        held_jobs = ResearchJobs(
            LangGraphResearchOrchestrator(Held(), FakeDebateGateway(), FakeJudgeGateway()),
            sessions,
            sessions,
            owner="bench-held",
            settings=settings,
            events_written=feed.wake,
        )
        held_service = ResearchOrchestrationService(held_jobs, sessions, sessions)
        target = (await held_service.submit(COMMAND)).session_id

        async def subscriber() -> int:
            seen = 0
            async for _ in feed.follow(target, 0):
                seen += 1
            return seen

        idle_cpu = time.process_time()
        await asyncio.sleep(args.seconds)
        idle = (time.process_time() - idle_cpu) / args.seconds
        followers = [asyncio.create_task(subscriber()) for _ in range(args.subscribers)]
        cpu = time.process_time()
        await asyncio.sleep(args.seconds)
        busy = (time.process_time() - cpu) / args.seconds
        released = time.perf_counter()
        gate.set()
        seen = await asyncio.gather(*followers)
        delivered = (time.perf_counter() - released) * 1000
        print(
            f"{args.subscribers} subscribers on one running session (one shared reader, woken by the writer, "
            "reading every 0.5 s otherwise): "
            f"{busy * 100:.0f}% of a core while waiting (idle process: {idle * 100:.0f}%); "
            f"each got {min(seen)}-{max(seen)} events, all within {delivered:.0f} ms of the run going on"
        )
        await held_jobs.stop()
        await jobs.stop()
    await close()
    if args.json:
        print("JSON " + json.dumps(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--burst", type=int, default=100)
    parser.add_argument("--subscribers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--database-url", help="the store (and checkpointer) to use; default: a new SQLite file")
    parser.add_argument("--json", action="store_true", help="print the figures as one last line, JSON after 'JSON '")
    configure_logging("WARNING")
    asyncio.run(main(parser.parse_args()))
