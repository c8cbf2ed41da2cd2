"""Real coordinator processes for crash tests: ``CoordinatorProcess`` runs ``uvicorn --factory
coordinator.main:create_app`` on a database (the launcher's ``ServiceProcess``); ``FakePeers`` is research +
debate + judge in one tiny ASGI app served by uvicorn in a thread, which can hold an expert's call until released
and counts every call (``calls``: the experts, ``symbols``: their symbols, in order); its bulk routes
(``shared_contracts.bulk``) count every item answered and can be slowed down or held by symbol."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn
from coordinator_fakes import debate_outcome, sample_result, verdict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from service_kit.stack.launcher import ServiceProcess, free_port
from shared_contracts.bulk import BulkAnswer, BulkItem, DebateBulkRequest, ExpertBulkRequest, JudgeBulkRequest

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
    """research + debate + judge on one port. Experts in ``hold`` block until ``release`` is set.

    The bulk routes answer every item with the per-symbol fakes' result after ``bulk_latency`` seconds. A call
    carrying a symbol in ``hold_symbols`` blocks until ``release`` is set (its symbols kept in ``held_calls``);
    with ``gather_calls`` set, calls wait until that many are in flight together (a barrier that stays open once
    reached; 30 s at most). ``answered`` counts the items answered per (stage, symbol), the stage an expert's
    name, ``debate`` or ``judge``; ``bulk_entered`` holds the symbols of every bulk call received;
    ``peak_bulk_in_flight`` the most bulk calls served at once."""

    def __init__(self, bulk_latency: float = 0.0) -> None:
        self.hold: set[str] = set()
        self.hold_symbols: set[str] = set()
        self.release = threading.Event()
        self.entered: set[str] = set()
        self.calls: list[str] = []
        self.symbols: list[str] = []
        self.bulk_latency = bulk_latency
        self.bulk_entered: set[str] = set()
        self.held_calls: list[list[str]] = []
        self.answered: Counter[tuple[str, str]] = Counter()
        self.gather_calls = 0
        self._gathered = asyncio.Event()
        self.bulk_in_flight = 0
        self.peak_bulk_in_flight = 0
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/healthz", self._health),
                Route("/api/v1/research/universe", self._universe),
                Route("/api/v1/research/experts/{expert}", self._expert, methods=["POST"]),
                Route("/api/v1/research/experts/{expert}/bulk", self._expert_bulk, methods=["POST"]),
                Route("/api/v1/debate/run", self._debate, methods=["POST"]),
                Route("/api/v1/debate/run/bulk", self._debate_bulk, methods=["POST"]),
                Route("/api/v1/judge/verdict", self._judge, methods=["POST"]),
                Route("/api/v1/judge/verdict/bulk", self._judge_bulk, methods=["POST"]),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def reset(self) -> None:
        """Forget the counts and holds, for the next test on the same peers."""
        self.hold, self.hold_symbols = set(), set()
        self.gather_calls = 0
        self._gathered = asyncio.Event()
        self.release.clear()
        self.entered.clear()
        self.calls.clear()
        self.symbols.clear()
        self.bulk_entered.clear()
        self.held_calls.clear()
        self.answered.clear()
        self.peak_bulk_in_flight = self.bulk_in_flight

    def judged(self, symbol: str) -> int:
        """How many times the judge's bulk route answered ``symbol``."""
        return self.answered["judge", symbol]

    async def _health(self, _request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def _universe(self, _request: Request) -> JSONResponse:
        """An offline universe: 600000.SH to 600999.SH, with bars up to 2025-09-30."""
        span = {"first": "2018-01-02", "last": "2025-09-30", "count": 1900}
        symbols = [{"symbol": f"{600000 + i}.SH", "market": "CN", "bars": span} for i in range(1000)]
        return JSONResponse({"data_provider": "offline", "open_ended": False, "count": 1000, "symbols": symbols})

    async def _expert(self, request: Request) -> JSONResponse:
        expert = request.path_params["expert"]
        body = await request.json()
        self.calls.append(expert)
        self.symbols.append(body["symbol"])
        self.entered.add(expert)
        if expert in self.hold:
            await asyncio.to_thread(self.release.wait)
        return JSONResponse(sample_result(expert, body["symbol"]))

    async def _debate(self, request: Request) -> JSONResponse:
        return JSONResponse(debate_outcome((await request.json())["symbol"]))

    async def _judge(self, request: Request) -> JSONResponse:
        return JSONResponse(verdict((await request.json())["symbol"]))

    async def _expert_bulk(self, request: Request) -> JSONResponse:
        expert = request.path_params["expert"]
        symbols = ExpertBulkRequest.model_validate(await request.json()).symbols
        return await self._bulk(expert, symbols, lambda symbol: sample_result(expert, symbol))

    async def _debate_bulk(self, request: Request) -> JSONResponse:
        items = DebateBulkRequest.model_validate(await request.json()).items
        return await self._bulk("debate", [str(i.symbol) for i in items], debate_outcome)

    async def _judge_bulk(self, request: Request) -> JSONResponse:
        items = JudgeBulkRequest.model_validate(await request.json()).items
        return await self._bulk("judge", [i.symbol for i in items], verdict)

    async def _bulk(self, stage: str, symbols: list[str], result: Callable[[str], dict[str, Any]]) -> JSONResponse:
        """One answer per symbol, in order, after the latency (and the hold, for a held symbol)."""
        self.bulk_in_flight += 1  # the app runs on one event loop: no lock needed
        self.peak_bulk_in_flight = max(self.peak_bulk_in_flight, self.bulk_in_flight)
        self.bulk_entered.update(symbols)
        try:
            if self.hold_symbols & set(symbols):
                self.held_calls.append(symbols)
                await asyncio.to_thread(self.release.wait)
            if self.bulk_in_flight >= self.gather_calls:
                self._gathered.set()  # gathered once: the barrier stays open
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._gathered.wait(), 30)
            await asyncio.sleep(self.bulk_latency)
        finally:
            self.bulk_in_flight -= 1
        self.answered.update((stage, symbol) for symbol in symbols)
        answer = BulkAnswer(items=[BulkItem(symbol=symbol, result=result(symbol)) for symbol in symbols])
        return JSONResponse(answer.model_dump(mode="json", exclude_none=True))

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
