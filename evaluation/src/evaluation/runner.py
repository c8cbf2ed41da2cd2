"""The run: every configuration × symbol × grid date as one research through the coordinator, concurrently.

``POST {coordinator}/api/v1/coordinator/research`` with ``{"symbol", "experts", "analysis_date"}``; each answer
becomes one ``ResearchRecord`` (``record_from_response``): 200 with a verdict → ``ok``; 200 without one →
``failed``; 404 ``symbol_not_found`` / 422 ``insufficient_history`` → ``refused``; anything else, a timeout or
a connection that kept failing (retried twice) → ``failed``. A grid date before a symbol's first bar is
``refused`` without a request. Records come back sorted (configuration, symbol, date) whatever the order the
answers arrived in.

In LLM mode a ``BudgetGate`` is asked before each research starts; once it says stop, no further research
starts (the ones not run have no record; ``RunOutcome.not_run`` counts them).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TextIO
from urllib.parse import quote

import httpx

from evaluation.llm_proxy import Budget, LLMStats
from evaluation.records import Configuration, ResearchRecord
from shared_contracts.research import PriceBars, Universe
from shared_contracts.scoring import DailyBar

RESEARCH_PATH = "/api/v1/coordinator/research"
UNIVERSE_PATH = "/api/v1/research/universe"
BARS_PATH = "/api/v1/research/bars/"
REFUSED = {404: "symbol_not_found", 422: "insufficient_history"}
BEFORE_FIRST_BAR = "before the first bar"
ATTEMPTS = 3
"""Tries of one research when the connection fails (not on an answer, nor on a read timeout)."""
CALLS_PER_RESEARCH_BEYOND_EXPERTS = 4
"""LLM calls of a research besides one per expert: bull, bear, resolution, judge (9 with all five experts)."""


@dataclass(frozen=True)
class Job:
    configuration: Configuration
    experts: tuple[str, ...]
    symbol: str
    analysis_date: date


def record_key(record: ResearchRecord) -> tuple[str, str, date]:
    return (record.configuration, record.symbol, record.analysis_date)


def plan_jobs(
    configurations: dict[Configuration, tuple[str, ...]],
    symbols: Sequence[str],
    dates: Sequence[date],
    first_bar: dict[str, date],
) -> tuple[list[Job], list[ResearchRecord]]:
    """The researches to send, symbol by symbol and date by date (the configurations of one point side by
    side: a budget that runs out leaves both configurations on the same points), and the ``refused`` records
    of the grid dates before each symbol's first bar."""
    jobs, skipped = [], []
    for symbol in symbols:
        for day in dates:
            for configuration, experts in configurations.items():
                if symbol in first_bar and day < first_bar[symbol]:
                    reason = f"{BEFORE_FIRST_BAR} ({first_bar[symbol].isoformat()})"
                    skipped.append(ResearchRecord(configuration, symbol, day, "refused", reason=reason))
                else:
                    jobs.append(Job(configuration, experts, symbol, day))
    return jobs, skipped


def _date(value: object) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _problem(status: int, body: object) -> str:
    problem = _dict(body)
    code = problem.get("code") or problem.get("title") or f"HTTP {status}"
    detail = problem.get("detail")
    if not detail and not problem:
        detail = "the answer is not a problem detail"
    return f"{code}: {detail}" if detail else str(code)


def record_from_response(job: Job, status: int, body: object) -> ResearchRecord:
    """One answer of the coordinator as a record (``body``: the decoded JSON, None when it was not JSON)."""
    if status != 200:
        problem = _dict(body)
        refused = status in REFUSED and REFUSED[status] == problem.get("code")
        reason = _problem(status, body) if refused else f"HTTP {status} {_problem(status, body)}"
        session_id = problem.get("session_id")
        return ResearchRecord(
            job.configuration,
            job.symbol,
            job.analysis_date,
            "refused" if refused else "failed",
            reason=reason,
            session_id=session_id if isinstance(session_id, str) else None,
        )
    answer = _dict(body)
    results = {name: _dict(envelope) for name, envelope in _dict(answer.get("expert_results")).items()}
    failed_experts = tuple(sorted(name for name, envelope in results.items() if envelope.get("status") == "failed"))
    technical = results.get("technical_analyst", {})
    technical_data = _dict(technical.get("data")) if technical.get("status") == "success" else {}
    debate = _dict(answer.get("debate_outcome"))
    verdict = _dict(answer.get("verdict"))
    overall = answer.get("overall_status")
    direction = debate.get("direction")
    common: dict[str, Any] = {
        "as_of": _date(technical_data.get("as_of")),
        "atr": _number(_dict(technical_data.get("technical_indicators")).get("atr14")),
        "direction": direction if isinstance(direction, str) else None,
        "debate_confidence": _number(debate.get("confidence")),
        "overall_status": overall if isinstance(overall, str) else None,
        "failed_experts": failed_experts,
        "session_id": answer.get("session_id") if isinstance(answer.get("session_id"), str) else None,
    }
    if not verdict:
        stage = "a debate outcome" if debate else "no debate outcome"
        reason = f"no verdict (overall_status {overall}, {stage})"
        return ResearchRecord(job.configuration, job.symbol, job.analysis_date, "failed", reason=reason, **common)
    engine = _dict(verdict.get("engine"))
    horizon = verdict.get("time_horizon")
    action = verdict.get("action")
    return ResearchRecord(
        job.configuration,
        job.symbol,
        job.analysis_date,
        "ok",
        action=action if isinstance(action, str) else None,
        confidence=_number(verdict.get("confidence")),
        position_percent=_number(verdict.get("position_percent")),
        stop_percent=_number(_dict(verdict.get("stop_loss")).get("percent_from_entry")),
        take_profit_percent=_number(_dict(verdict.get("take_profit")).get("percent_from_entry")),
        time_horizon=horizon if isinstance(horizon, str) else None,
        engine=str(engine.get("model") or engine.get("kind") or "") or None,
        score=_number(verdict.get("score")),
        universe_rank=_number(verdict.get("universe_rank")),
        market_exposure=_number(verdict.get("market_exposure")),
        **common,
    )


def _decoded(response: httpx.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return None


async def research(client: httpx.AsyncClient, coordinator_url: str, job: Job) -> ResearchRecord:
    """One research; a connection that fails (refused, reset, closed early) is retried, not a slow answer."""
    payload = {"symbol": job.symbol, "experts": list(job.experts), "analysis_date": job.analysis_date.isoformat()}
    for attempt in range(1, ATTEMPTS + 1):
        try:
            response = await client.post(coordinator_url + RESEARCH_PATH, json=payload)
        except (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout) as exc:
            return _failed(job, f"timeout: no answer in time ({type(exc).__name__})")
        except httpx.TransportError as exc:
            if attempt < ATTEMPTS:
                await asyncio.sleep(0.5 * attempt)
                continue
            return _failed(job, f"connection failed {ATTEMPTS} times: {type(exc).__name__}: {exc}")
        return record_from_response(job, response.status_code, _decoded(response))
    raise AssertionError("unreachable")


def _failed(job: Job, reason: str) -> ResearchRecord:
    return ResearchRecord(job.configuration, job.symbol, job.analysis_date, "failed", reason=reason)


async def fetch_universe(client: httpx.AsyncClient, research_url: str) -> Universe:
    response = await client.get(research_url + UNIVERSE_PATH)
    response.raise_for_status()
    return Universe.model_validate_json(response.content)


async def fetch_bars(client: httpx.AsyncClient, research_url: str, symbol: str) -> list[DailyBar]:
    """A symbol's daily bars, oldest first (none when the research service has no data for it: 404)."""
    response = await client.get(research_url + BARS_PATH + quote(symbol, safe=""))
    if response.status_code == 404:
        return []
    response.raise_for_status()
    bars = PriceBars.model_validate_json(response.content).bars
    return [DailyBar(date.fromisoformat(b.date[:10]), b.open, b.high, b.low, b.close, b.volume) for b in bars]


async def fetch_all_bars(
    client: httpx.AsyncClient, research_url: str, symbols: Iterable[str], concurrency: int
) -> dict[str, list[DailyBar]]:
    limit = asyncio.Semaphore(concurrency)

    async def one(symbol: str) -> tuple[str, list[DailyBar]]:
        async with limit:
            return symbol, await fetch_bars(client, research_url, symbol)

    return dict(await asyncio.gather(*(one(symbol) for symbol in symbols)))


class Progress:
    """done/total, rate and ETA on stderr: rewritten in place on a terminal, a line every 10 % otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "researches") -> None:
        self.total = total
        self.done = 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self._last_write = 0.0
        self._last_decile = 0

    def line(self, now: float | None = None) -> str:
        elapsed = (now if now is not None else time.monotonic()) - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        percent = 100.0 * self.done / self.total if self.total else 100.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        eta_text = _duration(eta) if math.isfinite(eta) else "?"
        return f"{self.label} {self.done}/{self.total} ({percent:.0f} %), {rate:.1f}/s, ETA {eta_text}"

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.tty:
            if now - self._last_write >= 0.2 or self.done >= self.total:
                self._last_write = now
                self.stream.write("\r" + self.line(now) + "\x1b[K")
                self.stream.flush()
        elif self.total:
            decile = self.done * 10 // self.total
            if decile > self._last_decile:
                self._last_decile = decile
                self.stream.write(self.line(now) + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


@dataclass
class BudgetGate:
    """Asked before each research: ``Budget.decide`` on the proxy's counts."""

    budget: Budget
    stats: Callable[[], LLMStats]

    def decide(self, *, in_flight: int, experts: int) -> str:
        calls = experts + CALLS_PER_RESEARCH_BEYOND_EXPERTS
        return self.budget.decide(self.stats(), in_flight=in_flight, calls_per_research=calls)

    def stop_reason(self) -> str:
        stats = self.stats()
        return (
            f"LLM budget: {stats.upstream_calls} calls / {stats.upstream_tokens} tokens used, the next research "
            f"could exceed --max-llm-calls {self.budget.max_calls} / --max-llm-tokens {self.budget.max_tokens}"
        )


@dataclass
class RunOutcome:
    records: list[ResearchRecord]
    sent: int
    """Researches sent to the coordinator."""
    not_run: int = 0
    """Researches not started because the LLM budget would have been exceeded."""
    budget_stop: str | None = None
    seconds: float = 0.0


async def run_jobs(
    client: httpx.AsyncClient,
    coordinator_urls: Sequence[str],
    jobs: Sequence[Job],
    *,
    concurrency: int,
    gate: BudgetGate | None = None,
    progress: Progress | None = None,
) -> RunOutcome:
    """``concurrency`` workers take the jobs in order, worker i sending to coordinator i modulo their number;
    with a ``gate``, each asks it before starting a research."""
    pending = iter(jobs)
    records: list[ResearchRecord] = []
    condition = asyncio.Condition()
    state: dict[str, Any] = {"in_flight": 0, "stop": None}
    started = time.monotonic()

    async def admitted(job: Job) -> bool:
        if gate is None:
            return True
        async with condition:
            while state["stop"] is None:
                decision = gate.decide(in_flight=state["in_flight"], experts=len(job.experts))
                if decision == "start":
                    return True
                if decision == "stop":
                    state["stop"] = gate.stop_reason()
                    condition.notify_all()
                    break
                await condition.wait()
        return False

    async def worker(coordinator_url: str) -> None:
        for job in pending:
            if state["stop"] is not None or not await admitted(job):
                return
            state["in_flight"] += 1
            try:
                records.append(await research(client, coordinator_url, job))
            finally:
                state["in_flight"] -= 1
                if gate is not None:
                    async with condition:
                        condition.notify_all()
            if progress is not None:
                progress.advance()

    workers = max(1, concurrency)
    await asyncio.gather(*(worker(coordinator_urls[i % len(coordinator_urls)]) for i in range(workers)))
    records.sort(key=record_key)
    return RunOutcome(
        records=records,
        sent=len(records),
        not_run=len(jobs) - len(records),
        budget_stop=state["stop"],
        seconds=time.monotonic() - started,
    )
