"""Replicas sharing a batch on one PostgreSQL: three real coordinator processes (``uvicorn --factory``) on a fresh
database, small chunks, a short lease, slow fake peers (their bulk routes). Each item runs exactly once; with one
replica killed (SIGKILL) mid-chunk, the items it was running are queued again by the lease and run by a live
replica: the batch completes, nothing is lost, no item is ended twice.

The processes take most of the time (each imports the service), so the module's tests share one cluster; each
submits its own batch and reads only that batch's rows.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
import pytest
from coordinator_persistence_fakes import local_postgres_database
from coordinator_processes import CoordinatorProcess, FakePeers, wait_for

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.events import TERMINAL_EVENTS

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

BATCHES = "/api/v1/coordinator/batches"
REPLICAS = 3
CHUNK, CONCURRENCY = 5, 2
REPLICA_SETTINGS = {
    "SESSION_LEASE_SECONDS": "2",
    "BATCH_CHUNK_SIZE": str(CHUNK),
    "BATCH_CONCURRENCY": str(CONCURRENCY),
    "JOB_POLL_SECONDS": "0.2",
}
EXPERTS = [e.value for e in ExpertType]
CLAIMS = ("session.started", "session.resumed")


def symbols(count: int) -> list[str]:
    return [f"{600000 + i}.SH" for i in range(count)]


@dataclass
class Cluster:
    database: str
    peers: FakePeers
    processes: list[CoordinatorProcess]

    @property
    def live(self) -> list[CoordinatorProcess]:
        return [p for p in self.processes if p.alive]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """``REPLICAS`` coordinators on a fresh database (the first migrates it, the others start together), with slow
    fake peers; all stopped after."""
    logs = tmp_path_factory.mktemp("replicas")
    with local_postgres_database() as database, FakePeers() as peers:
        processes = [
            CoordinatorProcess(database, peers.url, logs / f"replica-{i}.log", **REPLICA_SETTINGS)
            for i in range(REPLICAS)
        ]
        try:
            processes[0].start()
            with ThreadPoolExecutor(REPLICAS - 1) as pool:
                list(pool.map(CoordinatorProcess.start, processes[1:]))
            yield Cluster(database, peers, processes)
        finally:
            for process in processes:
                process.stop()


def submit(process: CoordinatorProcess, count: int) -> str:
    with httpx.Client(base_url=process.url, timeout=30) as client:
        submitted = client.post(BATCHES, json={"symbols": symbols(count), "analysis_date": "2025-06-30"})
    assert submitted.status_code == 202, submitted.text
    batch_id: str = submitted.json()["batch_id"]
    return batch_id


def finished(process: CoordinatorProcess, batch_id: str) -> dict[str, Any]:
    """The batch as the API shows it once it has a final status."""
    body: dict[str, Any] = {}
    with httpx.Client(base_url=process.url, timeout=30) as client:

        def done() -> bool:
            body.update(client.get(f"{BATCHES}/{batch_id}").json())
            return body["status"] not in ("queued", "running")

        wait_for(done, f"batch {batch_id} to end", timeout=120)
    return body


def query(database: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    async def fetch() -> list[asyncpg.Record]:
        connection = await asyncpg.connect(database.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            return list(await connection.fetch(sql, *args))
        finally:
            await connection.close()

    return asyncio.run(fetch())


@dataclass
class Item:
    """One batch item as stored: its session row and its events in order."""

    symbol: str
    status: str
    resume_count: int
    last_event_seq: int
    verdict: dict[str, Any] | None
    events: list[tuple[int, str, dict[str, Any]]]

    @property
    def claimed_by(self) -> list[str]:
        """The instances that claimed it, in order (the last one ended it)."""
        return [data["instance"] for _, kind, data in self.events if kind in CLAIMS]


def stored_items(database: str, batch_id: str) -> dict[str, Item]:
    rows = query(
        database,
        "SELECT session_id, symbol, status, resume_count, last_event_seq, verdict FROM research_sessions"
        " WHERE batch_id = $1",
        batch_id,
    )
    events = query(
        database,
        "SELECT e.session_id, e.seq, e.type, e.data FROM research_session_events e"
        " JOIN research_sessions s ON s.session_id = e.session_id WHERE s.batch_id = $1 ORDER BY e.session_id, e.seq",
        batch_id,
    )
    by_session: dict[str, list[tuple[int, str, dict[str, Any]]]] = {r["session_id"]: [] for r in rows}
    for e in events:
        by_session[e["session_id"]].append((e["seq"], e["type"], json.loads(e["data"])))
    return {
        r["symbol"]: Item(
            r["symbol"],
            r["status"],
            r["resume_count"],
            r["last_event_seq"],
            json.loads(r["verdict"]) if r["verdict"] is not None else None,
            by_session[r["session_id"]],
        )
        for r in rows
    }


def assert_each_ended_once(items: dict[str, Item], asked: list[str]) -> None:
    """Every item asked is stored completed with its verdict, its events numbered 1..n, one terminal event last."""
    assert sorted(items) == sorted(asked)
    for symbol, item in items.items():
        seqs = [seq for seq, _, _ in item.events]
        terminal = [kind for _, kind, _ in item.events if kind in TERMINAL_EVENTS]
        assert item.status == "completed", (symbol, item.status)
        assert seqs == list(range(1, item.last_event_seq + 1)), (symbol, seqs)
        assert terminal == ["session.completed"], (symbol, terminal)
        assert item.events[-1][1] == "session.completed"
        assert item.verdict is not None, symbol
        assert (item.verdict["symbol"], item.verdict["action"]) == (symbol, "BUY")


def test_replicas_share_a_batch_and_run_each_item_exactly_once(cluster: Cluster) -> None:
    """60 items in chunks of 5 on the live replicas (three, two after the kill test): the first bulk calls wait
    until every replica runs as many chunks as it may (all their expert calls in flight together), so chunks end
    and the next ones are claimed at about the same moment. Each item is claimed once, each expert and the judge
    answer each symbol once."""
    peers, live = cluster.peers, cluster.live
    assert len(live) >= 2
    full = len(live) * CONCURRENCY * len(EXPERTS)
    peers.reset()
    peers.bulk_latency = 0.2
    peers.gather_calls = full
    asked = symbols(60)
    batch_id = submit(live[0], len(asked))
    batch = finished(live[-1], batch_id)
    items = stored_items(cluster.database, batch_id)

    assert (batch["status"], batch["progress"]) == ("completed", {"done": 60, "total": 60, "failed": 0})
    assert_each_ended_once(items, asked)
    assert all(len(i.claimed_by) == 1 and i.resume_count == 0 for i in items.values())
    assert len({i.claimed_by[0] for i in items.values()}) == len(live)  # every replica ran chunks of it
    assert peers.answered == Counter({(stage, s): 1 for stage in [*EXPERTS, "debate", "judge"] for s in asked})
    assert peers.peak_bulk_in_flight == full  # gathered, and never more


def test_a_replica_killed_mid_chunk_loses_nothing_and_ends_nothing_twice(cluster: Cluster) -> None:
    """80 items on three replicas; the calls of one symbol's chunk are held, and the replica running it is killed
    (kill -9) while they are: the lease queues the items it was running again and a live replica runs them. The
    batch completes; every item ends once, its events without a gap; only the killed replica's items run twice."""
    database, peers, live = cluster.database, cluster.peers, cluster.live
    assert len(live) == REPLICAS
    peers.reset()
    peers.bulk_latency = 0.25
    asked = symbols(80)
    held = asked[42]
    peers.hold_symbols = {held}
    batch_id = submit(live[0], len(asked))
    wait_for(lambda: held in peers.bulk_entered, "the held symbol's chunk to call the peers", timeout=60)
    [(victim_id, victim_pid)] = query(
        database,
        "SELECT i.instance_id, i.pid FROM research_sessions s JOIN coordinator_instances i"
        " ON i.instance_id = s.owner WHERE s.batch_id = $1 AND s.symbol = $2 AND s.status = 'running'",
        batch_id,
        held,
    )
    victim = next(p for p in live if p.process is not None and p.process.pid == victim_pid)
    victim.kill()  # SIGKILL, and reaped: its pid is free, so the survivors' next lease round knows it is gone
    peers.release.set()
    batch = finished(cluster.live[0], batch_id)
    items = stored_items(database, batch_id)

    assert (batch["status"], batch["progress"]) == ("completed", {"done": 80, "total": 80, "failed": 0})
    assert_each_ended_once(items, asked)
    held_chunk = set(peers.held_calls[0])  # running on the victim, in a call to the peers, when it died
    assert held in held_chunk
    assert len(held_chunk) == CHUNK
    for symbol in held_chunk:
        item = items[symbol]
        assert item.resume_count == 1
        assert item.claimed_by[0] == victim_id
        assert item.claimed_by[-1] != victim_id  # a live replica ended it
        assert [kind for _, kind, _ in item.events].count("session.resumed") == 1
    resumed = {s for s, i in items.items() if i.resume_count}
    assert all(items[s].claimed_by[0] == victim_id for s in resumed)  # only the killed replica's items ran again
    assert all(len(i.claimed_by) == 1 for s, i in items.items() if s not in resumed)
    assert all(peers.judged(s) >= 1 for s in asked)
    assert {s for s in asked if peers.judged(s) > 1} <= resumed
    assert len({i.claimed_by[-1] for i in items.values()}) >= 2  # more than one replica ended chunks
    assert peers.peak_bulk_in_flight <= REPLICAS * CONCURRENCY * len(EXPERTS)
