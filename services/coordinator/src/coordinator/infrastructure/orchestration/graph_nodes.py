"""The research graph's nodes. Gateways come in through the factories; what differs per request comes in
through ``config["configurable"]``: ``progress`` (a ``ProgressRelay``) and ``carried_debate_outcome`` (a retry's).

Nodes never let an exception escape (in LangGraph an exception in one ``Send`` branch cancels its siblings):
a failing expert is recorded in ``errors`` (and, when the research service explained it with a problem
detail, in ``failures``); a failing debate or judge leaves an empty dict. Each expert, the debate and the
verdict report their outcome to the relay as they end.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import date
from functools import partial
from typing import Any, Literal, Protocol

import structlog
from langchain_core.runnables import RunnableConfig
from langgraph.types import Send

from coordinator.domain.dtos.research_dtos import ExpertFailure, overall_status_of
from coordinator.domain.exceptions import GatewayError, PeerResponseError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway
from coordinator.domain.ports.research_progress import IResearchProgressListener
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState
from shared_contracts.experts import is_iso_date
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)

AGGREGATOR_NODE = "aggregator_node"
DEBATE_NODE = "debate_node"
JUDGE_NODE = "judge_node"
PROGRESS = "progress"
CARRIED_DEBATE_OUTCOME = "carried_debate_outcome"
Stage = Literal["debate", "verdict"]
Write = Callable[[IResearchProgressListener], Awaitable[None]]


class Node(Protocol):
    def __call__(self, state: ResearchGraphState, config: RunnableConfig) -> Awaitable[dict[str, Any]]: ...


class ProgressRelay:
    """Hands each finished stage to the request's listener without holding up the graph: each write starts at
    once in a task of its own, after the writes of earlier stages have ended (experts, then the debate, then
    the verdict), so what the listener has stored is always a prefix of the run. After a write fails no later
    one is made, and the first failure is kept in ``failure`` (the orchestrator raises it once the graph is
    done: a store that is down is not an expert that failed)."""

    def __init__(self, listener: IResearchProgressListener | None = None) -> None:
        self._listener = listener
        self._writes: list[tuple[int, asyncio.Task[None]]] = []  # (stage order, write)
        self.failure: Exception | None = None
        self.unreported: set[Stage] = {"debate", "verdict"}

    @staticmethod
    def of(config: RunnableConfig) -> ProgressRelay:
        """The request's relay; a silent one for a graph run without one."""
        relay: ProgressRelay | None = config.get("configurable", {}).get(PROGRESS)
        return relay or ProgressRelay()

    def expert(self, expert: str, outcome: ExpertOutcome) -> None:
        self._write(0, lambda listener: listener.on_expert_finished(expert, outcome))

    def stage(self, stage: Stage, outcome: StageOutcome | None) -> None:
        """``outcome`` None: a retry's carried debate, used but not written (the caller stored it)."""
        self.unreported.discard(stage)
        if outcome is not None and stage == "debate":
            self._write(1, lambda listener: listener.on_debate_finished(outcome))
        elif outcome is not None:
            self._write(2, lambda listener: listener.on_verdict_finished(outcome))

    def skip_unreported(self) -> None:
        """The graph is done: the stages that did not run are ``skipped``."""
        for stage in sorted(self.unreported):
            self.stage(stage, StageOutcome("skipped"))

    async def settled(self) -> None:
        """Every write started has ended (a cancelled waiter does not cancel them)."""
        if self._writes:
            await asyncio.wait([task for _, task in self._writes])

    def _write(self, order: int, write: Write) -> None:
        if self._listener is not None:
            earlier = [task for before, task in self._writes if before < order]
            self._writes.append((order, asyncio.create_task(self._after(earlier, self._listener, write))))

    async def _after(
        self, earlier: list[asyncio.Task[None]], listener: IResearchProgressListener, write: Write
    ) -> None:
        if earlier:
            await asyncio.wait(earlier)
        if self.failure is not None:
            return  # a stage after one the listener could not store: what is stored stays a prefix
        try:
            await write(listener)
        except Exception as exc:
            log.error("progress_listener_failed", error=error_text(exc))
            self.failure = self.failure or exc


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)


def expert_node_name(expert: ExpertType | str) -> str:
    return f"{ExpertType(expert).value}_node"


def route_to_experts(state: ResearchGraphState) -> list[Send] | str:
    """One ``Send`` per selected expert that has no result yet (a retry carries the others'); with none
    left to run, straight to the aggregator."""
    pending = [e for e in state["selected_experts"] if e not in (state.get("results") or {})]
    return [Send(expert_node_name(e), state) for e in pending] if pending else AGGREGATOR_NODE


def create_expert_node(expert_type: ExpertType, gateway: IResearchExpertGateway) -> Node:
    """Asks the expert for the research's ``analysis_date`` (``ExpertOptions``)."""
    name = expert_type.value

    async def expert_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        started = time.perf_counter()
        options = ExpertOptions(state["options"].get(name, {}), analysis_date=state.get("analysis_date"))
        try:
            result = await gateway.run_expert(expert_type, state["symbol"], options)
        except Exception as exc:
            error, attempts = error_text(exc), exc.attempts if isinstance(exc, GatewayError) else 1
            log.warning("expert_failed", expert=name, error=error)
            failed = ExpertOutcome("failed", error=error, duration_ms=_elapsed_ms(started), attempts=attempts)
            ProgressRelay.of(config).expert(name, failed)
            failure = _failure_of(exc)
            return {"errors": {name: error}} | ({"failures": {name: failure}} if failure is not None else {})
        duration = _elapsed_ms(started)
        log.info("expert_done", expert=name, ms=duration, attempts=options.attempts)
        ProgressRelay.of(config).expert(name, ExpertOutcome("success", result, None, duration, options.attempts))
        return {"results": {name: result}}

    expert_node.__name__ = expert_node_name(expert_type)
    return expert_node


def _failure_of(exc: Exception) -> ExpertFailure | None:
    """What the research service said of a refused expert: its status, problem code and, when it named one,
    the earliest day its data can support (``insufficient_history``)."""
    if not isinstance(exc, PeerResponseError):
        return None
    earliest = exc.extensions.get("earliest_usable_date")
    day = date.fromisoformat(earliest) if isinstance(earliest, str) and is_iso_date(earliest) else None
    return ExpertFailure(status=exc.status, code=exc.peer_code, earliest_usable_date=day)


async def aggregator_node(state: ResearchGraphState) -> dict[str, Any]:
    """Results are passed on unchanged; only the overall status is decided here."""
    results = state.get("results") or {}
    status = overall_status_of(state.get("selected_experts") or list(results), set(results))
    errors = sorted(state.get("errors") or {})
    log.info("experts_gathered", overall_status=status, succeeded=sorted(results), failed=errors)
    return {"overall_status": status}


async def _stage(
    stage: Stage, config: RunnableConfig, call: Callable[[], Awaitable[dict[str, Any]]], shown: str
) -> dict[str, Any]:
    """Runs the debate or the judge and reports its outcome; an empty dict when it failed. ``shown``: the
    field of the answer its log line names."""
    started = time.perf_counter()
    try:
        data = await call()
    except Exception as exc:
        log.error(f"{stage}_failed", error=error_text(exc))
        failed = StageOutcome("failed", error=error_text(exc), duration_ms=_elapsed_ms(started))
        ProgressRelay.of(config).stage(stage, failed)
        return {}
    duration = _elapsed_ms(started)
    log.info(f"{stage}_done", ms=duration, **{shown: data.get(shown)})
    ProgressRelay.of(config).stage(stage, StageOutcome("success", duration_ms=duration, data=data))
    return data


def create_debate_node(debate_gateway: IDebateGateway) -> Node:
    """Skipped when every expert failed; a retry's carried debate outcome is used instead of a new debate. An
    expert asked for that failed is sent as None (missing evidence)."""

    async def debate_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        if state.get("overall_status") == "failed":
            log.info("debate_skipped", reason="no expert succeeded")
            return {"debate_outcome": {}}
        if carried := config.get("configurable", {}).get(CARRIED_DEBATE_OUTCOME):
            ProgressRelay.of(config).stage("debate", None)
            return {"debate_outcome": carried}
        results = {**dict.fromkeys(state.get("errors") or {}), **state["results"]}
        run = partial(debate_gateway.run_debate, state["symbol"], results)
        return {"debate_outcome": await _stage("debate", config, run, "direction")}

    return debate_node


def create_judge_node(judge_gateway: IJudgeGateway) -> Node:
    """Skipped without a debate outcome; the judge is told the research's day and which experts failed."""

    async def judge_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        debate_outcome = state.get("debate_outcome")
        if not debate_outcome:
            log.info("verdict_skipped", reason="no debate outcome")
            return {"verdict": {}}
        analysis_date = state.get("analysis_date")
        context = {
            "expert_results": state.get("results") or {},
            "analysis_date": analysis_date.isoformat() if analysis_date is not None else None,
            "failed_experts": sorted(state.get("errors") or {}),
        }
        run = partial(judge_gateway.run_verdict, state["symbol"], debate_outcome, context=context)
        return {"verdict": await _stage("verdict", config, run, "action")}

    return judge_node
