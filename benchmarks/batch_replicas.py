"""Replicas sharing batches (issue 48): 1, 2 and 3 coordinators on one fresh PostgreSQL database, the research,
debate and judge services in LLM mode against the fake OpenAI-compatible server at a fixed latency, every model call
under one global limit (``LLM_MAX_CONCURRENCY`` shared through Redis). For each replica count: the wall time of the
batches (every offline symbol as of each of ``--batches`` days), the peak of model calls in flight as the fake
server saw them (from each call's start and end), and whether every item ended once.

The offline snapshot has 121 symbols, so ``--batches 8`` (968 items) is the size of the issue's 1,000-symbol batch;
the default (2 batches, 242 items) keeps a run to a few minutes.

``python -m benchmarks.batch_replicas [--batches N] [--latency-ms MS] [--limit K] [--replicas 1 2 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import psycopg

from benchmarks import llm_script
from benchmarks.harness import llm_env
from evaluation.batches import run_batch
from evaluation.runner import Job
from service_kit.stack.launcher import running_stack
from stack_fakes.fake_llm import running_fake_llm

PG = "127.0.0.1:5432"
DAYS = [date(2025, 6, 30), date(2025, 3, 31), date(2024, 12, 31), date(2024, 9, 30)]
DAYS += [date(2024, 6, 28), date(2024, 3, 29), date(2023, 12, 29), date(2023, 9, 28)]
EXPERTS = ("technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective")


@contextlib.contextmanager
def fresh_database(user: str = "postgres") -> Iterator[str]:
    name = f"bench_batches_{uuid.uuid4().hex[:10]}"

    async def admin(sql: str) -> None:
        async with await psycopg.AsyncConnection.connect(f"postgresql://{user}@{PG}/test", autocommit=True) as conn:
            await conn.execute(sql.encode())

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql+asyncpg://{user}@{PG}/{name}"
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def peak_in_flight(calls: list[dict[str, Any]]) -> int:
    """The most calls open at once, from each call's start and end (the fake server's clock)."""
    moments = [(c["started"], 1) for c in calls if c.get("ended")] + [(c["ended"], -1) for c in calls if c.get("ended")]
    peak = open_now = 0
    for _, step in sorted(moments, key=lambda m: (m[0], m[1])):
        open_now += step
        peak = max(peak, open_now)
    return peak


async def _run(coordinators: list[str], research_url: str, batches: int) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=3600) as http:
        universe = (await http.get(research_url + "/api/v1/research/universe")).json()
        symbols = [s["symbol"] for s in universe["symbols"]]
        groups = [[Job("policy", EXPERTS, s, day) for s in symbols] for day in DAYS[:batches]]
        began = time.perf_counter()
        done = await asyncio.gather(
            *(run_batch(http, coordinators[i % len(coordinators)], g) for i, g in enumerate(groups))
        )
        seconds = time.perf_counter() - began
    records = [r for batch in done for r in batch]
    statuses: dict[str, int] = {}
    for record in records:
        statuses[record.status] = statuses.get(record.status, 0) + 1
    return {"items": len(records), "seconds": seconds, "statuses": statuses}


async def _ended_once(database_url: str) -> dict[str, int]:
    async def one_value(conn: psycopg.AsyncConnection[Any], sql: str) -> int:
        row = await (await conn.execute(sql.encode())).fetchone()
        return int(row[0]) if row is not None else 0

    url = database_url.replace("postgresql+asyncpg", "postgresql")
    async with await psycopg.AsyncConnection.connect(url) as conn:
        counts = await (
            await conn.execute(
                b"SELECT count(*) FROM research_session_events e JOIN research_sessions s USING (session_id) "
                b"WHERE s.batch_id IS NOT NULL AND e.type IN ('session.completed', 'session.partial', "
                b"'session.failed', 'session.cancelled', 'session.interrupted') GROUP BY e.session_id"
            )
        ).fetchall()
        items = await one_value(conn, "SELECT count(*) FROM research_sessions WHERE batch_id IS NOT NULL")
        replicas = await one_value(
            conn, "SELECT count(DISTINCT data->>'instance') FROM research_session_events WHERE type = 'session.started'"
        )
    return {
        "items": items,
        "ended_once": sum(1 for (n,) in counts if n == 1),
        "ended_twice_or_more": sum(1 for (n,) in counts if n > 1),
        "replicas_that_claimed": replicas,
    }


def one(replicas: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    with (
        running_fake_llm(work, llm_script.script(args.latency_ms), log_level="WARNING") as fake,
        fresh_database() as database_url,
    ):
        common = {
            **llm_env(fake.process.url),
            "LOG_LEVEL": "WARNING",
            "REDIS_URL": args.redis_url,
            "LLM_MAX_CONCURRENCY": str(args.limit),
            "LLM_TIMEOUT_SECONDS": "600",
        }
        coordinator = {
            "DATABASE_URL": database_url,
            "BATCH_CHUNK_SIZE": str(args.chunk),
            "BATCH_CONCURRENCY": "1",
            "EXPERT_TIMEOUT_SECONDS": "600",
            "DEBATE_TIMEOUT_SECONDS": "600",
            "JUDGE_TIMEOUT_SECONDS": "600",
        }
        names = ["coordinator"] + [f"coordinator-{i}" for i in range(2, replicas + 1)]
        with running_stack(
            work, common_env=common, per_service_env=dict.fromkeys(names, coordinator), coordinators=replicas
        ) as stack:
            fake.client.reset()
            measured = asyncio.run(_run([stack[n].url for n in names], stack["research"].url, args.batches))
            calls = fake.client.calls()
        measured |= asyncio.run(_ended_once(database_url))
    measured |= {"replicas": replicas, "model_calls": len(calls), "peak_model_calls_in_flight": peak_in_flight(calls)}
    print(json.dumps(measured), flush=True)
    return measured


def replicas(batches: int, work: Path) -> dict[str, Any]:
    """``make bench``'s section: 1, 2 and 3 replicas with this module's defaults; skipped (with the reason) for 0
    batches, or when PostgreSQL or Redis does not answer."""
    if batches <= 0:
        return {"skipped": "not in this configuration"}
    args = _parser().parse_args(["--batches", str(batches), "--work", str(work)])
    try:
        return {
            "limit": args.limit,
            "latency_ms": args.latency_ms,
            "runs": [one(n, args, work / f"r{n}") for n in (1, 2, 3)],
        }
    except (OSError, psycopg.OperationalError) as exc:
        return {"skipped": f"PostgreSQL at {PG} or Redis at {args.redis_url} did not answer ({exc})"}


def report_lines(result: dict[str, Any]) -> list[str]:
    lines = ["## Replicas sharing batches (LLM mode, PostgreSQL; issue 48)", ""]
    if "skipped" in result:
        return [*lines, f"Skipped: {result['skipped']}.", ""]
    lines += [
        f"The fake model answers after {result['latency_ms']:g} ms; one model-call limit of {result['limit']} shared "
        "through Redis by research, debate and judge.",
        "",
        "| replicas | items | wall | items/s | model calls | peak in flight (limit) | ended once | claimed by |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        lines.append(
            f"| {r['replicas']} | {r['items']} | {r['seconds']:.1f} s | {r['items'] / r['seconds']:.2f} | "
            f"{r['model_calls']} | {r['peak_model_calls_in_flight']} ({result['limit']}) | "
            f"{r['ended_once']}/{r['items']} | {r['replicas_that_claimed']} |"
        )
    return [*lines, ""]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.batch_replicas", description=__doc__)
    parser.add_argument("--batches", type=int, default=2, help="batches of every offline symbol (max 8)")
    parser.add_argument("--latency-ms", type=float, default=1000.0, help="the fake model's latency")
    parser.add_argument("--limit", type=int, default=200, help="LLM_MAX_CONCURRENCY, shared through Redis")
    parser.add_argument("--chunk", type=int, default=20, help="BATCH_CHUNK_SIZE (one chunk at a time per replica)")
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--work", type=Path, default=Path("bench-results/batch-replicas").resolve())
    return parser


def main() -> int:
    args = _parser().parse_args()
    runs = [one(n, args, args.work / f"replicas-{n}") for n in args.replicas]
    print("\n".join(report_lines({"limit": args.limit, "latency_ms": args.latency_ms, "runs": runs})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
