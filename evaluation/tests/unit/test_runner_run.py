"""The run: concurrency, record order, the LLM budget gate, progress lines."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import date

import httpx

from evaluation.llm_proxy import Budget, LLMStats
from evaluation.runner import BudgetGate, Job, Progress, run_jobs

URL = "http://coordinator.test"


def jobs(count: int) -> list[Job]:
    return [Job("policy", ("technical_analyst",), f"S{i % 3}", date(2024, 1 + i // 3, 28)) for i in range(count)]


def verdict_answer(symbol: str) -> dict[str, object]:
    verdict = {
        "action": "BUY",
        "confidence": 0.7,
        "position_percent": 10.0,
        "stop_loss": {"percent_from_entry": -5.0},
        "take_profit": {"percent_from_entry": 10.0},
        "time_horizon": "SHORT_TERM",
        "engine": {"kind": "rules", "model": None},
    }
    return {"session_id": f"s-{symbol}", "overall_status": "completed", "expert_results": {}, "verdict": verdict}


class Coordinator:
    """Answers each research after a delay that makes later requests finish first; counts the peak in flight."""

    def __init__(self, on_request: object = None) -> None:
        self.in_flight = 0
        self.peak = 0
        self.calls = 0
        self.on_request = on_request

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.calls += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        if callable(self.on_request):
            self.on_request()
        await asyncio.sleep(0.02 / self.calls)
        self.in_flight -= 1
        return httpx.Response(200, json=verdict_answer(body["symbol"]))


async def test_the_run_keeps_to_its_concurrency_and_sorts_the_records() -> None:
    coordinator = Coordinator()
    async with httpx.AsyncClient(transport=httpx.MockTransport(coordinator.handle)) as client:
        outcome = await run_jobs(client, [URL], jobs(12), concurrency=4)
    assert coordinator.peak == 4
    assert (outcome.sent, outcome.not_run, outcome.budget_stop) == (12, 0, None)
    keys = [(r.symbol, r.analysis_date) for r in outcome.records]
    assert keys == sorted(keys)
    assert {r.status for r in outcome.records} == {"ok"}


async def test_the_budget_gate_stops_starting_researches_when_the_next_could_exceed_it() -> None:
    used = LLMStats()

    def five_calls_each() -> None:  # a technical-only research: 1 expert + bull, bear, resolution, judge
        nonlocal used
        used = LLMStats(upstream_calls=used.upstream_calls + 5, upstream_tokens=used.upstream_tokens + 500)

    coordinator = Coordinator(on_request=five_calls_each)
    gate = BudgetGate(Budget(max_calls=22), lambda: used)
    async with httpx.AsyncClient(transport=httpx.MockTransport(coordinator.handle)) as client:
        outcome = await run_jobs(client, [URL], jobs(10), concurrency=3, gate=gate)
    # 5 calls reserved per research: 4 researches use 20 calls; a fifth could make 25 > 22
    assert (outcome.sent, outcome.not_run) == (4, 6)
    assert used.upstream_calls == 20
    assert coordinator.peak <= 3
    assert outcome.budget_stop is not None
    assert outcome.budget_stop.startswith("LLM budget: 20 calls / 2000 tokens used")


async def test_a_token_budget_runs_one_research_first_then_as_many_as_fit() -> None:
    used = LLMStats()

    def cost() -> None:
        nonlocal used
        used = LLMStats(upstream_calls=used.upstream_calls + 5, upstream_tokens=used.upstream_tokens + 1000)

    coordinator = Coordinator(on_request=cost)
    gate = BudgetGate(Budget(max_tokens=4_000), lambda: used)
    async with httpx.AsyncClient(transport=httpx.MockTransport(coordinator.handle)) as client:
        outcome = await run_jobs(client, [URL], jobs(10), concurrency=8, gate=gate)
    assert (outcome.sent, used.upstream_tokens) == (4, 4_000)
    assert used.upstream_tokens <= 4_000


def test_progress_writes_a_line_every_tenth_when_not_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(20, stream=stream)
    for _ in range(20):
        progress.advance()
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("researches 2/20 (10 %), ")
    assert lines[-1].startswith("researches 20/20 (100 %), ")
    assert "/s, ETA " in lines[-1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_rewrites_one_line_on_a_terminal() -> None:
    stream = _Terminal()
    progress = Progress(3, stream=stream)
    for _ in range(3):
        progress.advance()
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\rresearches 1/3")
    assert text.endswith("\n")
    assert text.count("\n") == 1
    assert "\rresearches 3/3 (100 %)" in text


async def test_the_researches_are_spread_over_several_coordinators() -> None:
    hosts: list[str] = []
    coordinator = Coordinator()

    async def handle(request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        return await coordinator.handle(request)

    urls = ["http://coordinator-a.test", "http://coordinator-b.test"]
    async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as client:
        outcome = await run_jobs(client, urls, jobs(12), concurrency=4)
    assert outcome.sent == 12
    assert sorted(set(hosts)) == ["coordinator-a.test", "coordinator-b.test"]
    assert 4 <= hosts.count("coordinator-a.test") <= 8
