"""One client cannot take what the others need (real coordinator processes, ``AUTH_MODE=api_key``, two clients): its
event streams are capped however many addresses it opens them from, and its queued researches neither fill the
queue for another client nor run before another client's."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from coordinator_persistence_fakes import RESEARCH, SESSIONS
from coordinator_processes import CoordinatorProcess, FakePeers, wait_for

from service_kit.api_keys import hash_key, new_key

pytestmark = pytest.mark.e2e

ALICE, BOB, SERVICE = new_key(), new_key(), new_key()
TA = "technical_analyst"
ASYNC = {"Prefer": "respond-async"}
KEYS = {
    "AUTH_MODE": "api_key",
    "API_KEYS": f"alice={hash_key(ALICE)},bob={hash_key(BOB)},coordinator={hash_key(SERVICE)}:service",
    "SERVICE_API_KEY": SERVICE,
    "RATE_LIMIT_READS": "100000/minute",  # the caps under test, not the rate limits
    "RATE_LIMIT_WRITES": "100000/minute",
    "RESEARCH_DAILY_QUOTA": "0",
}


def _as(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _research(symbol: str) -> dict[str, object]:
    return {"symbol": symbol, "experts": [TA], "skip_debate": True}


@pytest.fixture
def peers() -> Iterator[FakePeers]:
    with FakePeers() as running:
        yield running


async def _open_stream(port: int, path: str, key: str, source: str, held: list[asyncio.StreamWriter]) -> int:
    """A GET of ``path`` from ``source``; returns the status, keeping an accepted stream open in ``held`` (0: the
    connection was closed or refused before an answer)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    except OSError:
        return 0
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nAccept: text/event-stream\r\n\r\n"
    writer.write(head.encode())
    try:
        line = await asyncio.wait_for(reader.readline(), 20)
    except (OSError, TimeoutError):
        line = b""
    status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
    if status == 200:
        held.append(writer)
    else:
        writer.close()
    return status


async def _flood(port: int, path: str, streams: int, wave: int = 50) -> tuple[Counter[int], list[asyncio.StreamWriter]]:
    """``streams`` streams of alice's, half from each address, opened ``wave`` at a time (the open ones kept): what is
    counted is the coordinator's answer to each, not uvicorn's refusal of a burst beyond its 512 connections."""
    held: list[asyncio.StreamWriter] = []
    sources = ("127.0.0.1", "127.0.0.2")
    statuses: Counter[int] = Counter()
    for start in range(0, streams, wave):
        opened = [_open_stream(port, path, ALICE, sources[i % 2], held) for i in range(start, start + wave)]
        statuses.update(await asyncio.gather(*opened))
    return statuses, held


def test_a_client_with_600_streams_on_two_addresses_leaves_another_client_served(
    tmp_path: Path, peers: FakePeers
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'coordinator.db'}"
    coordinator = CoordinatorProcess(database, peers.url, tmp_path / "coordinator.log", **KEYS)
    peers.hold = {TA}  # the research stays running: its stream stays open
    try:
        coordinator.start()
        with httpx.Client(base_url=coordinator.url, timeout=30) as client:
            session_id = client.post(RESEARCH, json=_research("600519.SH"), headers={**ASYNC, **_as(ALICE)}).json()[
                "session_id"
            ]
            port = int(coordinator.url.rsplit(":", 1)[1])

            async def attack_then_serve() -> tuple[Counter[int], list[int], int]:
                statuses, held = await _flood(port, f"{SESSIONS}/{session_id}/events", 600)
                try:
                    async with httpx.AsyncClient(base_url=coordinator.url, timeout=10, headers=_as(BOB)) as bob:
                        served = [(await bob.get(SESSIONS)).status_code for _ in range(20)]
                        mine = (await bob.post(RESEARCH, json=_research("600000.SH"), headers=ASYNC)).json()
                        async with bob.stream("GET", f"{SESSIONS}/{mine['session_id']}/events") as stream:
                            bob_stream = stream.status_code
                finally:
                    for writer in held:
                        writer.close()
                return statuses, served, bob_stream

            started = time.monotonic()
            statuses, served, bob_stream = asyncio.run(attack_then_serve())
            seconds = time.monotonic() - started
            peers.release.set()
    finally:
        coordinator.stop()
    print(f"600 streams: {dict(statuses)}; the other client: {served.count(200)}/20 in {seconds:.1f} s")
    assert statuses == {200: 32, 429: 568}  # EVENT_STREAMS_PER_CLIENT, whatever the addresses
    assert served == [200] * 20
    assert bob_stream == 200


def test_two_clients_share_the_queue_and_take_turns(tmp_path: Path, peers: FakePeers) -> None:
    """RESEARCH_CONCURRENCY=2, RESEARCH_QUEUE_LIMIT=10: alice's 12 researches (2 running, 10 queued) leave bob
    room in the queue, bob's starts before alice's third, and each client's queue_position counts only its own."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'coordinator.db'}"
    limits = {"RESEARCH_CONCURRENCY": "2", "RESEARCH_QUEUE_LIMIT": "10"}
    coordinator = CoordinatorProcess(database, peers.url, tmp_path / "coordinator.log", **KEYS, **limits)
    peers.hold = {TA}
    alices = [f"{600000 + i}.SH" for i in range(12)]
    try:
        coordinator.start()
        with httpx.Client(base_url=coordinator.url, timeout=30) as client:
            submitted = [
                client.post(RESEARCH, json=_research(s), headers={**ASYNC, **_as(ALICE)}).json() for s in alices
            ]
            wait_for(lambda: len(peers.symbols) == 2, "alice's first two researches running")
            bobs = client.post(RESEARCH, json=_research("600100.SH"), headers={**ASYNC, **_as(BOB)})
            alice_more = client.post(RESEARCH, json=_research("600012.SH"), headers={**ASYNC, **_as(ALICE)})
            last = client.get(f"{SESSIONS}/{submitted[-1]['session_id']}", headers=_as(ALICE)).json()
            bob_detail = client.get(f"{SESSIONS}/{bobs.json()['session_id']}", headers=_as(BOB)).json()
            peers.release.set()
            wait_for(lambda: len(peers.symbols) == 13, "every research started")
    finally:
        coordinator.stop()
    print(f"start order: {peers.symbols[:5]} (bob: 600100.SH)")
    assert bobs.status_code == 202, bobs.text
    assert (bobs.json()["queue_position"], bob_detail["queue_position"]) == (1, 1)
    assert (alice_more.status_code, alice_more.json()["code"]) == (503, "queue_full")
    assert [s["queue_position"] for s in submitted[2:]] == list(range(1, 11))
    assert last["queue_position"] == 10
    assert peers.symbols.index("600100.SH") < peers.symbols.index(alices[3])  # at most after alice's first queued
