"""The session store's writes on a SQLite file: latency per write and CPU per session, with the writes on
their own thread (what the coordinator does) and through aiosqlite (the async engine, as before), in the
same run.

Run: ``uv run python services/coordinator/benchmarks/bench_store.py [--sessions 200]``

A session's writes are those of a research: create, five experts, the debate, the verdict, finish. First
one session at a time (p50 latency of each write), then all sessions at once (the experts of a session
concurrently, as when they finish together; on the writer thread, writes that queue up while one commits are
committed together). CPU is ``time.process_time`` of this process, every thread.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from coordinator.domain.model.session import ExpertOutcome, ResearchSession, StageOutcome
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.migrate import run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.write_transactions import AsyncEngineWrites
from service_kit.logging import configure_logging

EXPERTS = ["technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective"]
DATA = {"signal": "BULLISH", "confidence": 0.7, "facts": {"series": list(range(400))}, "summary": "x" * 2000}


def new_session() -> ResearchSession:
    return ResearchSession(
        session_id=str(uuid.uuid4()), symbol="600519.SH", experts=list(EXPERTS), options={}, skip_debate=False
    )


async def one_session(repo: SqlAlchemySessionRepository, timings: dict[str, list[float]] | None) -> None:
    session = new_session()

    async def timed(name: str, write: asyncio.Future[None] | object) -> None:
        started = time.perf_counter()
        await write  # type: ignore[misc]
        if timings is not None:
            timings.setdefault(name, []).append((time.perf_counter() - started) * 1000)

    sid = session.session_id
    await timed("create", repo.create(session))
    outcome = ExpertOutcome("success", DATA, None, 10.0)
    if timings is None:
        await asyncio.gather(*(repo.record_expert(sid, e, outcome) for e in EXPERTS))
    else:
        for expert in EXPERTS:
            await timed("record_expert", repo.record_expert(sid, expert, outcome))
    await timed("record_debate", repo.record_debate(sid, StageOutcome("success", None, 5.0, {"outcome": DATA})))
    await timed("record_verdict", repo.record_verdict(sid, StageOutcome("success", None, 5.0, {"action": "BUY"})))
    await timed("finish", repo.finish(sid, "completed"))


async def measure(label: str, repo: SqlAlchemySessionRepository, sessions: int) -> None:
    for _ in range(20):
        await one_session(repo, None)
    timings: dict[str, list[float]] = {}
    for _ in range(sessions):
        await one_session(repo, timings)
    p50 = ", ".join(f"{name} {statistics.median(ms):.2f}" for name, ms in timings.items())
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one_session(repo, None) for _ in range(sessions)))
    cpu_ms = (time.process_time() - cpu) * 1000 / sessions
    wall_ms = (time.perf_counter() - wall) * 1000 / sessions
    print(f"{label}:\n  one session at a time, p50 ms per write: {p50}")
    print(f"  {sessions} sessions at once: {cpu_ms:.2f} ms CPU and {wall_ms:.2f} ms wall per session")


async def main(sessions: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for label, on_aiosqlite in (("writes on their own thread (the store)", False), ("through aiosqlite", True)):
            url = f"sqlite+aiosqlite:///{Path(folder) / label.split()[0]}.db"
            await run_migrations(url)
            engine = build_engine(url)
            repo = SqlAlchemySessionRepository(engine, writes=AsyncEngineWrites(engine) if on_aiosqlite else None)
            try:
                await measure(label, repo, sessions)
            finally:
                await repo.close()
                await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=200)
    configure_logging("WARNING")
    asyncio.run(main(parser.parse_args().sessions))
