"""Crash durability: a coordinator process killed (SIGKILL) mid-session, then restarted, shows the
session ``interrupted``; retrying it re-runs only what had not finished and completes; no session
that was acknowledged before the crash is missing.

Real processes: the coordinator runs as ``uvicorn --factory coordinator.main:create_app`` on a SQLite
file; the research/debate/judge peers are a tiny fake ASGI app served by uvicorn in a thread, which
can hold an expert's call until released (so a session is mid-flight when the coordinator dies).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from coordinator_fakes import debate_outcome, sample_result, verdict
from coordinator_persistence_fakes import RESEARCH, SESSIONS, retry_path, sqlite_url
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

pytestmark = pytest.mark.e2e

TA, MI = "technical_analyst", "macro_intelligence"
# The product's entry point; another factory can be named to run this test against it.
FACTORY = os.environ.get("CRASH_TEST_COORDINATOR_FACTORY", "coordinator.main:create_app")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class FakePeers:
    """research + debate + judge on one port. Experts in ``hold`` block until ``release`` is set."""

    def __init__(self) -> None:
        self.hold: set[str] = set()
        self.release = threading.Event()
        self.entered: set[str] = set()
        self.calls: list[str] = []
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/healthz", self._health),
                Route("/api/v1/research/experts/{expert}", self._expert, methods=["POST"]),
                Route("/api/v1/debate/run", self._debate, methods=["POST"]),
                Route("/api/v1/judge/verdict", self._judge, methods=["POST"]),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    async def _health(self, _request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def _expert(self, request: Request) -> JSONResponse:
        expert = request.path_params["expert"]
        body = await request.json()
        self.calls.append(expert)
        self.entered.add(expert)
        if expert in self.hold:
            await asyncio.to_thread(self.release.wait)
        return JSONResponse(sample_result(expert, body["symbol"]))

    async def _debate(self, request: Request) -> JSONResponse:
        return JSONResponse(debate_outcome((await request.json())["symbol"]))

    async def _judge(self, request: Request) -> JSONResponse:
        return JSONResponse(verdict((await request.json())["symbol"]))

    def __enter__(self) -> FakePeers:
        self._thread.start()
        _wait_for(lambda: self._server.started, "the fake peers to start")
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release.set()
        self._server.should_exit = True
        self._thread.join(timeout=10)


class CoordinatorProcess:
    def __init__(self, database_url: str, peers_url: str, log: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "RESEARCH_SERVICE_URL": peers_url,
            "DEBATE_SERVICE_URL": peers_url,
            "JUDGE_SERVICE_URL": peers_url,
            "HTTP_MAX_ATTEMPTS": "1",
            "LOG_JSON": "false",
        }
        self._log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self._log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "--factory",
                    FACTORY,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        # generous: importing the service takes seconds, more on a loaded machine
        _wait_for(self._healthy, f"the coordinator at {self.url} (log: {self._log})", timeout=180)

    def _healthy(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the coordinator exited with {self.process.returncode}: {self._log.read_text()}")
        try:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


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


def test_a_killed_coordinator_leaves_an_interrupted_session_that_a_retry_completes(
    coordinator: CoordinatorProcess, peers: FakePeers
) -> None:
    coordinator.start()
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:
        acknowledged = _json(client.post(RESEARCH, json={"symbol": "600519.SH", "experts": [TA]}))
        if not acknowledged["session_id"] or client.get(SESSIONS).status_code == 404:
            pytest.skip(f"{FACTORY} does not open the session store and session routes yet (composition root)")

        peers.hold = {MI}
        with ThreadPoolExecutor(max_workers=1) as pool:
            in_flight = pool.submit(client.post, RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI]})
            _wait_for(lambda: MI in peers.entered, "the held expert to be called")
            running = _running_session(client)
            _wait_for(
                lambda: TA in _json(client.get(f"{SESSIONS}/{running}"))["expert_results"],
                "the finished expert to be committed",
            )

            coordinator.kill()
            with pytest.raises(httpx.TransportError):
                in_flight.result(timeout=30)

    coordinator.start()  # same database: the start-up marks what was running as interrupted
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:
        crashed = _json(client.get(f"{SESSIONS}/{running}"))
        assert crashed["status"] == "interrupted"
        assert crashed["expert_results"][TA]["status"] == "success"
        assert MI not in crashed["expert_results"]
        survived = _json(client.get(f"{SESSIONS}/{acknowledged['session_id']}"))
        assert survived["status"] == "completed"  # nothing acknowledged is lost
        assert survived["verdict"] is not None
        assert _json(client.get(SESSIONS))["total"] == 2

        peers.hold = set()
        peers.calls.clear()
        retried = _json(client.post(retry_path(running)))

        assert peers.calls == [MI]  # only what had not finished
        assert (retried["overall_status"], retried["retry_count"]) == ("completed", 1)
        assert retried["expert_results"][TA]["data"] == sample_result(TA)
        assert retried["expert_results"][MI]["status"] == "success"
        assert retried["verdict"]["action"] == "BUY"
        stored = _json(client.get(f"{SESSIONS}/{retried['session_id']}"))
        assert (stored["status"], stored["retried_from"]) == ("completed", running)
        assert _json(client.post(retry_path(running)), 409)["code"] == "already_retried"


def _running_session(client: httpx.Client) -> str:
    found: list[str] = []

    def look() -> bool:
        found[:] = [s["session_id"] for s in _json(client.get(SESSIONS, params={"status": "running"}))["items"]]
        return len(found) == 1

    _wait_for(look, "the running session to be listed")
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
        with httpx.Client(base_url=old.url, timeout=60) as client, ThreadPoolExecutor(max_workers=1) as pool:
            in_flight = pool.submit(client.post, RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI]})
            _wait_for(lambda: MI in peers.entered, "the held expert to be called")
            running = _running_session(client)

            new.start()  # registers, then sweeps: the old coordinator is alive, its session is not touched
            with httpx.Client(base_url=new.url, timeout=30) as beside:
                assert _json(beside.get(f"{SESSIONS}/{running}"))["status"] == "running"

            peers.release.set()
            answered = in_flight.result(timeout=60)
        assert _json(answered)["overall_status"] == "completed"
        old.stop()  # graceful: nothing of its own is still running
        with httpx.Client(base_url=new.url, timeout=30) as client:
            assert _json(client.get(f"{SESSIONS}/{running}"))["status"] == "completed"
    finally:
        new.stop()
        old.stop()
