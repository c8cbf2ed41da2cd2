"""The load generator: one asyncio + httpx client in the benchmark process, on loopback.

The client runs on aiohttp's transport (``httpx-aiohttp``, as the coordinator's peer client): it shares the
two cores with the services it measures, and httpx's own transport cost it two to four times the CPU per
request."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_aiohttp import AiohttpTransport

from benchmarks.harness import percentile, research_body
from service_kit.stack.api_paths import RESEARCH

CLIENT_TIMEOUT_S = 300.0


@dataclass
class Outcome:
    ms: float
    status: int
    ok: bool
    error: str | None = None
    started: float = 0.0
    """time.monotonic() when the request was sent (comparable with the fake LLM's call log: same host clock)."""
    ended: float = 0.0
    body: dict[str, Any] | None = None


def is_full_success(status: int, body: Any) -> str | None:
    """None when the research completed end to end (5 experts, a debate outcome and a verdict), else why not."""
    if status != 200:
        return f"HTTP {status}"
    if not isinstance(body, dict):
        return "no JSON body"
    if body.get("overall_status") != "completed":
        return f"overall_status {body.get('overall_status')}"
    if not body.get("debate_outcome"):
        return "no debate outcome"
    if not body.get("verdict"):
        return "no verdict"
    return None


def client(concurrency: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=concurrency + 8, max_keepalive_connections=concurrency + 8)
    return httpx.AsyncClient(timeout=CLIENT_TIMEOUT_S, limits=limits, transport=AiohttpTransport(limits=limits))


async def one_research(
    http: httpx.AsyncClient, base_url: str, *, keep_body: bool = False, body: dict[str, Any] | None = None
) -> Outcome:
    started = time.monotonic()
    t0 = time.perf_counter()
    try:
        response = await http.post(base_url + RESEARCH, json=body or research_body())
        payload = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        ms = (time.perf_counter() - t0) * 1000
        return Outcome(ms, 0, False, f"{type(exc).__name__}: {exc}"[:200], started, time.monotonic())
    ms = (time.perf_counter() - t0) * 1000
    error = is_full_success(response.status_code, payload)
    return Outcome(
        ms, response.status_code, error is None, error, started, time.monotonic(), payload if keep_body else None
    )


@dataclass
class Burst:
    """N researches sent at once (a closed burst): latencies, errors, wall time."""

    concurrency: int
    outcomes: list[Outcome] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def latencies(self) -> list[float]:
        return [o.ms for o in self.outcomes if o.ok]

    @property
    def errors(self) -> int:
        return sum(not o.ok for o in self.outcomes)

    @property
    def error_kinds(self) -> dict[str, int]:
        kinds: dict[str, int] = {}
        for o in self.outcomes:
            if not o.ok:
                kinds[o.error or "?"] = kinds.get(o.error or "?", 0) + 1
        return kinds

    @property
    def throughput(self) -> float:
        return sum(o.ok for o in self.outcomes) / self.wall_s if self.wall_s else 0.0

    def summary(self) -> dict[str, Any]:
        lat = self.latencies
        return {
            "n": len(self.outcomes),
            "errors": self.errors,
            "error_kinds": self.error_kinds,
            "p50_ms": percentile(lat, 0.50),
            "p95_ms": percentile(lat, 0.95),
            "p99_ms": percentile(lat, 0.99),
            "max_ms": max(lat) if lat else float("nan"),
            "wall_s": self.wall_s,
            "throughput_rps": self.throughput,
        }


async def burst(base_url: str, concurrency: int) -> Burst:
    async with client(concurrency) as http:
        t0 = time.perf_counter()
        outcomes = await asyncio.gather(*(one_research(http, base_url) for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    return Burst(concurrency, list(outcomes), wall)


async def sequential(base_url: str, n: int) -> list[Outcome]:
    async with client(1) as http:
        return [await one_research(http, base_url) for _ in range(n)]


async def closed_loop(base_url: str, concurrency: int, seconds: float) -> Burst:
    """``concurrency`` workers, each sending its next research as soon as the previous answered, for
    ``seconds``; a request in flight at the deadline is awaited and counted (wall covers it)."""
    deadline = time.monotonic() + seconds
    result = Burst(concurrency)
    async with client(concurrency) as http:

        async def worker() -> None:
            while time.monotonic() < deadline:
                result.outcomes.append(await one_research(http, base_url))

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        result.wall_s = time.perf_counter() - t0
    return result
