"""Crash durability: a coordinator process killed (SIGKILL) mid-session is resumed from its last finished stage,
by the same coordinator restarted or by another replica; what had finished is not called again.

Real processes: the coordinator runs as ``uvicorn --factory coordinator.main:create_app`` on a SQLite
file; the research/debate/judge peers are a tiny fake ASGI app served by uvicorn in a thread, which
can hold an expert's call until released (so a session is mid-flight when the coordinator dies).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from coordinator_fakes import parse_sse
from coordinator_persistence_fakes import RESEARCH, SESSIONS, local_postgres_database, sqlite_url
from coordinator_processes import CoordinatorProcess, FakePeers, wait_for

pytestmark = pytest.mark.e2e

TA, MI = "technical_analyst", "macro_intelligence"
FA, VM, CD = "financial_auditor", "valuation_modeler", "catalyst_detective"
FIVE_EXPERTS = {"symbol": "600519.SH", "experts": [TA, FA, VM, MI, CD]}
ASYNC = {"Prefer": "respond-async"}


@pytest.fixture
def peers() -> Iterator[FakePeers]:
    with FakePeers() as running:
        yield running


@pytest.fixture
def coordinator(tmp_path: Path, peers: FakePeers) -> Iterator[CoordinatorProcess]:
    process = CoordinatorProcess(sqlite_url(tmp_path), peers.url, tmp_path / "coordinator.log")
    try:
        yield process
    finally:
        process.stop()


def _json(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def test_a_killed_coordinator_restarted_resumes_its_research_from_the_last_finished_stage(
    coordinator: CoordinatorProcess, peers: FakePeers
) -> None:
    """kill -9 with two of five experts finished (the other three held by slow peers): the restarted coordinator
    resumes the session from its checkpoint; the two are not called again; the verdict arrives on the stream."""
    coordinator.start()
    peers.hold = {MI, FA, VM}
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:
        acknowledged = _json(client.post(RESEARCH, json=FIVE_EXPERTS, headers=ASYNC), 202)
        session_id = acknowledged["session_id"]
        wait_for(lambda: {TA, CD} <= set(_expert_results(client, session_id)), "two finished experts committed")
        coordinator.kill()
    assert sorted(peers.calls) == sorted(FIVE_EXPERTS["experts"])

    peers.calls.clear()
    peers.hold = set()
    peers.release.set()
    coordinator.start()  # same database: the start-up queues the dead coordinator's session again
    events = stream_events(coordinator.url, session_id)
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:
        stored = _json(client.get(f"{SESSIONS}/{session_id}"))
        unfinished = [_json(client.get(SESSIONS, params={"status": s}))["total"] for s in ("running", "queued")]

    assert sorted(peers.calls) == sorted([MI, FA, VM])  # the two finished experts are not called again
    kinds = [e["event"] for e in events]
    assert "session.resumed" in kinds
    resumed = next(e["data"] for e in events if e["event"] == "session.resumed")
    assert (resumed["from_stage"], resumed["resume_count"]) == ("experts", 1)
    assert kinds[-2:] == ["verdict.completed", "session.completed"]
    assert (stored["status"], stored["resume_count"]) == ("completed", 1)
    assert set(stored["expert_results"]) == set(FIVE_EXPERTS["experts"])
    assert stored["verdict"]["action"] == "BUY"
    assert unfinished == [0, 0]  # nothing left running or queued


@pytest.mark.postgres
def test_a_second_coordinator_resumes_what_a_killed_one_was_running(tmp_path: Path, peers: FakePeers) -> None:
    """Two coordinators on one PostgreSQL: submitted on A, which is killed after two of five experts finished; B
    resumes it once A is known gone (its lease), without calling the two again; B's stream delivers the verdict."""
    with local_postgres_database() as database:
        lease = {"SESSION_LEASE_SECONDS": "3"}
        a = CoordinatorProcess(database, peers.url, tmp_path / "a.log", **lease)
        b = CoordinatorProcess(database, peers.url, tmp_path / "b.log", **lease)
        try:
            a.start()
            b.start()
            peers.hold = {MI, FA, VM}
            with httpx.Client(base_url=a.url, timeout=30) as client:
                session_id = _json(client.post(RESEARCH, json=FIVE_EXPERTS, headers=ASYNC), 202)["session_id"]
                wait_for(lambda: {TA, CD} <= set(_expert_results(client, session_id)), "two experts committed")
            a.kill()
            peers.calls.clear()
            peers.hold = set()
            peers.release.set()
            events = stream_events(b.url, session_id)
            with httpx.Client(base_url=b.url, timeout=30) as client:
                stored = _json(client.get(f"{SESSIONS}/{session_id}"))
                unfinished = [_json(client.get(SESSIONS, params={"status": s}))["total"] for s in ("running", "queued")]
        finally:
            a.stop()
            b.stop()
    assert sorted(peers.calls) == sorted([MI, FA, VM])
    resumed = next(e["data"] for e in events if e["event"] == "session.resumed")
    assert resumed["instance"] != next(e["data"] for e in events if e["event"] == "session.started")["instance"]
    assert [e["event"] for e in events][-2:] == ["verdict.completed", "session.completed"]
    assert (stored["status"], stored["resume_count"]) == ("completed", 1)
    assert unfinished == [0, 0]


def _expert_results(client: httpx.Client, session_id: str) -> dict[str, Any]:
    results: dict[str, Any] = _json(client.get(f"{SESSIONS}/{session_id}"))["expert_results"]
    return results


def stream_events(url: str, session_id: str, timeout: float = 120.0) -> list[dict[str, Any]]:
    """The session's whole event stream (it ends with the terminal event)."""
    with httpx.stream("GET", f"{url}{SESSIONS}/{session_id}/events", timeout=timeout) as response:
        assert response.status_code == 200
        return parse_sse("".join(response.iter_text()))


def _running_session(client: httpx.Client) -> str:
    found: list[str] = []

    def look() -> bool:
        found[:] = [s["session_id"] for s in _json(client.get(SESSIONS, params={"status": "running"}))["items"]]
        return len(found) == 1

    wait_for(look, "the running session to be listed")
    return found[0]


def test_a_coordinator_starting_beside_a_running_one_leaves_its_session_alone(tmp_path: Path, peers: FakePeers) -> None:
    """A rolling update, or a second replica: a new coordinator process on the same database starts while
    another serves a research. The running session stays running and completes; stopping the old process
    afterwards loses nothing."""
    database = sqlite_url(tmp_path)
    old = CoordinatorProcess(database, peers.url, tmp_path / "old.log")
    new = CoordinatorProcess(database, peers.url, tmp_path / "new.log")
    try:
        old.start()
        peers.hold = {MI}
        # generous: the second coordinator's start takes long on a loaded machine, and the research waits for it
        with httpx.Client(base_url=old.url, timeout=300) as client, ThreadPoolExecutor(max_workers=1) as pool:
            in_flight = pool.submit(client.post, RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI]})
            wait_for(lambda: MI in peers.entered, "the held expert to be called")
            running = _running_session(client)

            new.start()  # registers, then sweeps: the old coordinator is alive, its session is not touched
            with httpx.Client(base_url=new.url, timeout=30) as beside:
                assert _json(beside.get(f"{SESSIONS}/{running}"))["status"] == "running"

            peers.release.set()
            answered = in_flight.result(timeout=300)
        assert _json(answered)["overall_status"] == "completed"
        old.stop()  # graceful: nothing of its own is still running
        with httpx.Client(base_url=new.url, timeout=30) as client:
            assert _json(client.get(f"{SESSIONS}/{running}"))["status"] == "completed"
    finally:
        new.stop()
        old.stop()
