"""Real coordinator processes for crash tests: ``CoordinatorProcess`` runs ``uvicorn --factory
coordinator.main:create_app`` on a database (the launcher's ``ServiceProcess``); ``FakePeers`` is research +
debate + judge in one tiny ASGI app served by uvicorn in a thread, which can hold an expert's call until released
and counts every call."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import uvicorn
from coordinator_fakes import debate_outcome, sample_result, verdict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from service_kit.stack.launcher import ServiceProcess, free_port

# The product's entry point; another factory can be named to run the crash tests against it.
FACTORY = os.environ.get("CRASH_TEST_COORDINATOR_FACTORY", "coordinator.main:create_app")


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
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
        self.port = free_port()
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
        wait_for(lambda: self._server.started, "the fake peers to start")
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release.set()
        self._server.should_exit = True
        self._thread.join(timeout=10)


class CoordinatorProcess(ServiceProcess):
    """``FACTORY`` under the workspace's launcher on a free port, on ``database_url``, its peers at ``peers_url``;
    ``start`` returns once ``/healthz`` answers."""

    def __init__(self, database_url: str, peers_url: str, log: Path, **environment: str) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "RESEARCH_SERVICE_URL": peers_url,
            "DEBATE_SERVICE_URL": peers_url,
            "JUDGE_SERVICE_URL": peers_url,
            "HTTP_MAX_ATTEMPTS": "1",
            "LOG_JSON": "false",
            **environment,
        }
        super().__init__("coordinator", FACTORY, free_port(), env, log, cwd=Path.cwd())

    def start(self) -> None:
        super().start()
        # generous: importing the service takes seconds, more on a loaded machine
        self.wait_ready("/healthz", timeout=180)
