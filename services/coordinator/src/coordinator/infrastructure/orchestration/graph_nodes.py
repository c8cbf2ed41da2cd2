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
_RANK = {"expert": 0, "debate": 1, "verdict": 2}
Stage = Literal["debate", "verdict"]


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
        self._writes: list[tuple[int, asyncio.Task[None]]] = []
        self.failure: Exception | None = None
        self.unreported: set[Stage] = {"debate", "verdict"}

    @staticmethod
    def of(config: RunnableConfig) -> ProgressRelay:
        """The request's relay; a silent one for a graph run without one."""
        relay: ProgressRelay | None = config.get("configurable", {}).get(PROGRESS)
        return relay or ProgressRelay()

    def expert(self, expert: str, outcome: ExpertOutcome) -> None:
        self._write("expert", lambda listener: listener.on_expert_finished(expert, outcome))

    def stage(self, stage: Stage, outcome: StageOutcome | None) -> None:
        """``outcome`` None: a retry's carried debate, used but not written (the caller stored it)."""
        self.unreported.discard(stage)
        if outcome is None:
            return
        if stage == "debate":
            self._write(stage, lambda listener: listener.on_debate_finished(outcome))
        else:
            self._write(stage, lambda listener: listener.on_verdict_finished(outcome))

    def skip_unreported(self) -> None:
        """The graph is done: the stages that did not run are ``skipped``."""
        for stage in sorted(self.unreported):
            self.stage(stage, StageOutcome("skipped"))

    async def settled(self) -> None:
        """Every write started has ended (a cancelled waiter does not cancel them)."""
        if self._writes:
            await asyncio.wait([task for _, task in self._writes])

    def _write(self, stage: str, call: Callable[[IResearchProgressListener], Awaitable[None]]) -> None:
        if self._listener is not None:
            earlier = [task for rank, task in self._writes if rank < _RANK[stage]]
            self._writes.append((_RANK[stage], asyncio.create_task(self._after(earlier, self._listener, call))))

    async def _after(
        self,
        earlier: list[asyncio.Task[None]],
        listener: IResearchProgressListener,
        call: Callable[[IResearchProgressListener], Awaitable[None]],
    ) -> None:
        if earlier:
            await asyncio.wait(earlier)
        if self.failure is not None:
            return  # a stage after one the listener could not store: what is stored stays a prefix
        try:
            await call(listener)
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
    if not pending:
        return AGGREGATOR_NODE
    return [Send(expert_node_name(e), state) for e in pending]


def create_expert_node(expert_type: ExpertType, gateway: IResearchExpertGateway) -> Node:
    """Asks the expert for the research's ``analysis_date`` (``ExpertOptions``)."""
    name = expert_type.value

    async def expert_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        started = time.perf_counter()
        options = ExpertOptions(state["options"].get(name, {}), analysis_date=state.get("analysis_date"))
        try:
            result = await gateway.run_expert(expert_type, state["symbol"], options)
        except Exception as exc:
            error = error_text(exc)
            log.warning("expert_failed", expert=name, error=error)
            attempts = exc.attempts if isinstance(exc, GatewayError) else 1
            ProgressRelay.of(config).expert(
                name, ExpertOutcome("failed", error=error, duration_ms=_elapsed_ms(started), attempts=attempts)
            )
            update: dict[str, Any] = {"errors": {name: error}}
            if (failure := _failure_of(exc)) is not None:
                update["failures"] = {name: failure}
            return update
        duration, attempts = _elapsed_ms(started), options.attempts
        log.info("expert_done", expert=name, ms=duration, attempts=attempts)
        ProgressRelay.of(config).expert(
            name, ExpertOutcome("success", data=result, duration_ms=duration, attempts=attempts)
        )
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


def create_debate_node(debate_gateway: IDebateGateway) -> Node:
    """Skipped when every expert failed; a retry's carried debate outcome is used instead of a new debate."""

    async def debate_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        if state.get("overall_status") == "failed":
            log.info("debate_skipped", reason="no expert succeeded")
            return {"debate_outcome": {}}
        relay = ProgressRelay.of(config)
        if carried := config.get("configurable", {}).get(CARRIED_DEBATE_OUTCOME):
            relay.stage("debate", None)
            return {"debate_outcome": carried}
        started = time.perf_counter()
        try:
            failed = dict.fromkeys(state.get("errors") or {})  # None: asked for, failed (missing evidence)
            outcome = await debate_gateway.run_debate(state["symbol"], {**failed, **state["results"]})
        except Exception as exc:
            log.error("debate_failed", error=error_text(exc))
            relay.stage("debate", StageOutcome("failed", error=error_text(exc), duration_ms=_elapsed_ms(started)))
            return {"debate_outcome": {}}
        duration = _elapsed_ms(started)
        log.info("debate_done", ms=duration, direction=outcome.get("direction"))
        relay.stage("debate", StageOutcome("success", duration_ms=duration, data=outcome))
        return {"debate_outcome": outcome}

    return debate_node


def create_judge_node(judge_gateway: IJudgeGateway) -> Node:
    """Skipped without a debate outcome; the judge is told the research's day and which experts failed."""

    async def judge_node(state: ResearchGraphState, config: RunnableConfig) -> dict[str, Any]:
        debate_outcome = state.get("debate_outcome")
        if not debate_outcome:
            log.info("verdict_skipped", reason="no debate outcome")
            return {"verdict": {}}
        relay = ProgressRelay.of(config)
        analysis_date = state.get("analysis_date")
        context = {
            "expert_results": state.get("results") or {},
            "analysis_date": analysis_date.isoformat() if analysis_date is not None else None,
            "failed_experts": sorted(state.get("errors") or {}),
        }
        started = time.perf_counter()
        try:
            verdict = await judge_gateway.run_verdict(state["symbol"], debate_outcome, context=context)
        except Exception as exc:
            log.error("verdict_failed", error=error_text(exc))
            relay.stage("verdict", StageOutcome("failed", error=error_text(exc), duration_ms=_elapsed_ms(started)))
            return {"verdict": {}}
        duration = _elapsed_ms(started)
        log.info("verdict_done", ms=duration, action=verdict.get("action"))
        relay.stage("verdict", StageOutcome("success", duration_ms=duration, data=verdict))
        return {"verdict": verdict}

    return judge_node
