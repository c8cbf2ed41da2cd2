"""A store that cannot take writes answers fast and recovers by itself (real coordinator processes): a read-only
PostgreSQL (a failover's demoted primary) and a SQLite file another process holds locked answer
``503 session_store_unavailable`` within 5 s, ``/readyz`` says not ready, and a session whose final write the
store refused is finished once it takes writes again, without a restart."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from coordinator_persistence_fakes import RESEARCH, SESSIONS, local_postgres_database, pg_admin
from coordinator_processes import CoordinatorProcess, FakePeers, wait_for

pytestmark = pytest.mark.e2e

TA, MI = "technical_analyst", "macro_intelligence"
TWO_EXPERTS = {"symbol": "600519.SH", "experts": [TA, MI], "skip_debate": True}
ASYNC = {"Prefer": "respond-async"}


@pytest.fixture
def peers() -> Iterator[FakePeers]:
    with FakePeers() as running:
        yield running


def _timed_post(client: httpx.Client, body: dict[str, Any]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = client.post(RESEARCH, json=body)
    return response, time.monotonic() - started


def _read_only(database: str, user: str, on: bool) -> None:
    """The database's default made read-only (its backends ended, so every connection has it), or writable again
    (the connections opened meanwhile keep the read-only default they started with)."""
    value = "on" if on else "off"
    asyncio.run(pg_admin(user, f'ALTER DATABASE "{database}" SET default_transaction_read_only = {value}'))
    if on:
        ended = f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
        asyncio.run(pg_admin(user, ended))


@pytest.mark.postgres
def test_a_read_only_postgresql_answers_503_fast_and_the_session_in_flight_ends_when_it_is_writable(
    tmp_path: Path, peers: FakePeers
) -> None:
    with local_postgres_database() as url:
        database, user = url.rsplit("/", 1)[1], url.split("//", 1)[1].split("@", 1)[0]
        coordinator = CoordinatorProcess(url, peers.url, tmp_path / "coordinator.log")
        try:
            coordinator.start()
            with httpx.Client(base_url=coordinator.url, timeout=30) as client:
                assert client.post(RESEARCH, json=TWO_EXPERTS).status_code == 200  # pools and checkpointer warm
                peers.hold = {MI}
                in_flight = client.post(RESEARCH, json=TWO_EXPERTS, headers=ASYNC).json()["session_id"]
                wait_for(lambda: MI in peers.entered, "the held expert called")

                _read_only(database, user, on=True)
                refused, seconds = _timed_post(client, TWO_EXPERTS)
                ready = client.get("/readyz")
                peers.release.set()  # the session in flight reaches its next write, which the store refuses
                time.sleep(1.5)
                status_while_down = client.get(f"{SESSIONS}/{in_flight}").status_code

                _read_only(database, user, on=False)
                recovered = time.monotonic()
                wait_for(lambda: client.get(f"{SESSIONS}/{in_flight}").json()["status"] != "running", "it ends", 20)
                ended_after = time.monotonic() - recovered
                stored = client.get(f"{SESSIONS}/{in_flight}").json()
                after = [client.post(RESEARCH, json=TWO_EXPERTS).status_code for _ in range(3)]
                ready_after = client.get("/readyz").status_code
        finally:
            coordinator.stop()
    print(f"read-only: 503 in {seconds:.2f} s; the session in flight ended {ended_after:.1f} s after recovery")
    assert (refused.status_code, refused.json()["code"]) == (503, "session_store_unavailable"), refused.text
    assert seconds < 5
    assert ready.status_code == 503
    assert ready.json()["checks"]["database"] != "ok"
    assert status_while_down in (200, 503)
    assert stored["status"] == "failed", stored
    assert ended_after < 15
    assert after == [200, 200, 200]
    assert ready_after == 200


def test_a_sqlite_file_another_process_holds_locked_answers_503_within_5_seconds(
    tmp_path: Path, peers: FakePeers
) -> None:
    database = tmp_path / "coordinator.db"
    coordinator = CoordinatorProcess(f"sqlite+aiosqlite:///{database}", peers.url, tmp_path / "coordinator.log")
    try:
        coordinator.start()
        with httpx.Client(base_url=coordinator.url, timeout=120) as client:
            assert client.post(RESEARCH, json=TWO_EXPERTS).status_code == 200
            holder = sqlite3.connect(database, timeout=0, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            try:
                answers = []
                for _ in range(3):
                    answers.append(_timed_post(client, TWO_EXPERTS))
                ready = client.get("/readyz")
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            after = client.post(RESEARCH, json=TWO_EXPERTS)
            ready_after = client.get("/readyz")
    finally:
        coordinator.stop()
    print("locked SQLite: " + ", ".join(f"{r.status_code} in {s:.2f} s" for r, s in answers))
    for response, seconds in answers:
        assert (response.status_code, response.json()["code"]) == (503, "session_store_unavailable"), response.text
        assert seconds < 5
    assert ready.status_code == 503
    assert (after.status_code, ready_after.status_code) == (200, 200)
