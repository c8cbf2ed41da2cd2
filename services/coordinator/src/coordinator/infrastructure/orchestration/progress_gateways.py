"""Gateway wrappers that report each stage to an ``IResearchProgressListener`` the moment it ends
(so a session can commit it at once), without changing the graph's node factories. The report does not
hold up the next stage: a commit costs ~0.7 ms on the critical path, three times per research
(benchmarks/README.md, seventh round); the commits still keep stage order.

A listener that fails (e.g. the session store is down) must not be mistaken for a failing expert:
its error is kept aside and raised by the orchestrator once the graph is done.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from coordinator.domain.exceptions import GatewayError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.research_progress import IResearchProgressListener
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)


# The order in which stages are stored: a stage's write waits for the writes of every lower rank.
EXPERTS_RANK, DEBATE_RANK, VERDICT_RANK = 0, 1, 2


class ProgressRelay:
    """Forwards events to the listener (if any) without holding up the graph: each event's call starts at
    once, in a task of its own, after the calls of the earlier stages have ended (experts, then the
    debate, then the verdict), so what the listener has stored is always a prefix of the run. ``settled()``
    waits for every call. Remembers the first listener failure and which stages ran."""

    def __init__(self, listener: IResearchProgressListener | None) -> None:
        self._listener = listener
        self._calls: list[tuple[int, asyncio.Task[None]]] = []  # (stage rank, call)
        self.failure: BaseException | None = None
        self.debate_reported = False
        self.verdict_reported = False

    def expert(self, expert: str, outcome: ExpertOutcome) -> None:
        if self._listener is not None:
            self._start(EXPERTS_RANK, functools.partial(self._listener.on_expert_finished, expert, outcome))

    def debate(self, stage: StageOutcome, outcome: dict[str, Any] | None) -> None:
        self.debate_reported = True
        if self._listener is not None:
            self._start(DEBATE_RANK, functools.partial(self._listener.on_debate_finished, stage, outcome))

    def debate_carried(self) -> None:
        """A retry's carried debate outcome was used: nothing to report (the caller stored it)."""
        self.debate_reported = True

    def verdict(self, stage: StageOutcome, verdict: dict[str, Any] | None) -> None:
        self.verdict_reported = True
        if self._listener is not None:
            self._start(VERDICT_RANK, functools.partial(self._listener.on_verdict_finished, stage, verdict))

    async def settled(self) -> None:
        """Every call started so far has ended (a cancelled waiter does not cancel them)."""
        if self._calls:
            await asyncio.wait([call for _, call in self._calls])

    def _start(self, rank: int, call: Callable[[], Awaitable[None]]) -> None:
        earlier = [task for r, task in self._calls if r < rank]
        self._calls.append((rank, asyncio.create_task(self._guard(earlier, call))))

    async def _guard(self, earlier: list[asyncio.Task[None]], call: Callable[[], Awaitable[None]]) -> None:
        if earlier:
            await asyncio.wait(earlier)
        if self.failure is not None:
            return  # a stage after one the listener could not store: what is stored stays a prefix
        try:
            await call()
        except Exception as exc:
            log.error("progress_listener_failed", error=error_text(exc))
            if self.failure is None:
                self.failure = exc


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)


class ReportingExpertGateway(IResearchExpertGateway):
    def __init__(self, inner: IResearchExpertGateway, relay: ProgressRelay) -> None:
        self._inner = inner
        self._relay = relay

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            run = await self._inner.run_expert_detailed(expert_type, symbol, options)
        except Exception as exc:
            attempts = exc.attempts if isinstance(exc, GatewayError) else 1
            outcome = ExpertOutcome(
                "failed", error=error_text(exc), duration_ms=_elapsed_ms(started), attempts=attempts
            )
            self._relay.expert(expert_type.value, outcome)
            raise
        duration = _elapsed_ms(started)
        log.info("expert_done", expert=expert_type.value, ms=duration, attempts=run.attempts)
        self._relay.expert(
            expert_type.value, ExpertOutcome("success", data=run.data, duration_ms=duration, attempts=run.attempts)
        )
        return run.data


class ReportingDebateGateway(IDebateGateway):
    """With ``carried`` (a retry whose debate had succeeded), the debate is not run again."""

    def __init__(self, inner: IDebateGateway, relay: ProgressRelay, carried: dict[str, Any] | None = None) -> None:
        self._inner = inner
        self._relay = relay
        self._carried = carried

    async def run_debate(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        if self._carried:
            self._relay.debate_carried()
            return self._carried
        started = time.perf_counter()
        try:
            outcome = await self._inner.run_debate(symbol, expert_results)
        except Exception as exc:
            self._relay.debate(StageOutcome("failed", error=error_text(exc), duration_ms=_elapsed_ms(started)), None)
            raise
        duration = _elapsed_ms(started)
        log.info("debate_done", ms=duration, direction=outcome.get("direction"))
        self._relay.debate(StageOutcome("success", duration_ms=duration), outcome)
        return outcome


class ReportingJudgeGateway(IJudgeGateway):
    def __init__(self, inner: IJudgeGateway, relay: ProgressRelay) -> None:
        self._inner = inner
        self._relay = relay

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            verdict = await self._inner.run_verdict(symbol, debate_outcome, context=context)
        except Exception as exc:
            self._relay.verdict(StageOutcome("failed", error=error_text(exc), duration_ms=_elapsed_ms(started)), None)
            raise
        duration = _elapsed_ms(started)
        log.info("verdict_done", ms=duration, action=verdict.get("action"))
        self._relay.verdict(StageOutcome("success", duration_ms=duration), verdict)
        return verdict
