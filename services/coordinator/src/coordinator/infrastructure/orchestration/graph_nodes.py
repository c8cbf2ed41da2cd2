"""The research graph's nodes. Gateways come in through the factories; what differs per run comes in through the
typed runtime context (``ResearchContext``).

The token budget (``token_budget`` in the state) is checked before each peer call: a stage that finds it spent fails
with ``token_budget_exhausted`` without calling its peer; otherwise the peer is given what is left (``X-Token-Budget``)
and enforces it before each model call. The experts run in parallel and share what is left evenly (each gets its
share; docs/decisions.md, "LLM usage and token budgets"). Each node adds what its stage used to ``tokens_spent``.

Nodes never let an exception escape (in LangGraph an exception in one ``Send`` branch cancels its siblings): a
failing expert, debate or judge is written as a failed outcome, with its error, duration and attempts.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

import structlog
from langgraph.runtime import Runtime
from langgraph.types import Send
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from coordinator.domain.dtos.research_dtos import overall_status_of
from coordinator.domain.exceptions import GatewayError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.model.stage_failures import failure_of, spent_by_failure, tokens_used_by, usage_of_failure
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway
from coordinator.infrastructure.orchestration.graph_state import ResearchContext, ResearchGraphState
from shared_contracts.redaction import error_text
from shared_contracts.usage import TOKEN_BUDGET_EXHAUSTED

log = structlog.get_logger(__name__)

AGGREGATOR_NODE = "aggregator_node"
DEBATE_NODE = "debate_node"
JUDGE_NODE = "judge_node"
STARTED = "started"
"""Key of the note a node writes to the graph's ``custom`` stream just before it calls its peer."""


class Node(Protocol):
    def __call__(self, state: ResearchGraphState, runtime: Runtime[ResearchContext]) -> Awaitable[dict[str, Any]]: ...


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)


def expert_node_name(expert: ExpertType | str) -> str:
    return f"{ExpertType(expert).value}_node"


def expert_of_node(node: str) -> str | None:
    """The expert a node runs, or None for another node."""
    name = node.removesuffix("_node")
    return name if node.endswith("_node") and name in ExpertType._value2member_map_ else None


def remaining_budget(state: ResearchGraphState) -> int | None:
    """The tokens the research may still use; None: no budget."""
    budget = state.get("token_budget")
    return None if budget is None else budget - state.get("tokens_spent", 0)


def budget_exhausted(state: ResearchGraphState, stage: str) -> str:
    """The error of a stage not run because the budget is spent."""
    budget, spent = state.get("token_budget"), state.get("tokens_spent", 0)
    spent_text = f"the research's token budget ({budget} tokens) is spent ({spent} used)"
    return f"{TOKEN_BUDGET_EXHAUSTED}: {spent_text}: {stage} not run"


def route_to_experts(state: ResearchGraphState) -> list[Send] | str:
    """One ``Send`` per selected expert that has no outcome yet (a retry carries the others'); with none left
    to run, straight to the aggregator."""
    pending = [e for e in state["selected_experts"] if e not in (state.get("experts") or {})]
    return [Send(expert_node_name(e), state) for e in pending] if pending else AGGREGATOR_NODE


def create_expert_node(expert_type: ExpertType, gateway: IResearchExpertGateway) -> Node:
    """Asks the expert for the research's ``analysis_date`` (``ExpertOptions``)."""
    name = expert_type.value

    async def expert_node(state: ResearchGraphState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
        started = time.perf_counter()
        options = ExpertOptions(
            state["options"].get(name, {}), analysis_date=state.get("analysis_date"), language=state.get("language")
        )
        if (remaining := remaining_budget(state)) is not None:
            running = [e for e in state["selected_experts"] if e not in (state.get("experts") or {})]
            options.token_budget = max(remaining, 0) // max(len(running), 1)  # parallel experts share it evenly
            if options.token_budget <= 0:
                error = budget_exhausted(state, name)
                log.warning("expert_failed", expert=name, error=error)
                return {"experts": {name: ExpertOutcome("failed", None, error, 0.0, 0)}, "errors": {name: error}}
        runtime.stream_writer({STARTED: expert_node_name(expert_type)})
        try:
            with _expert_span(runtime, name):
                result = await gateway.run_expert(expert_type, state["symbol"], options)
        except Exception as exc:
            error, attempts = error_text(exc), exc.attempts if isinstance(exc, GatewayError) else 1
            log.warning("expert_failed", expert=name, error=error)
            failed = ExpertOutcome("failed", None, error, _elapsed_ms(started), attempts, failure_of(exc))
            return {"experts": {name: failed}, "errors": {name: error}, "tokens_spent": spent_by_failure(exc)}
        duration = _elapsed_ms(started)
        log.info("expert_done", expert=name, ms=duration, attempts=options.attempts)
        outcome = ExpertOutcome("success", result, None, duration, options.attempts)
        return {"experts": {name: outcome}, "results": {name: result}, "tokens_spent": tokens_used_by(result)}

    expert_node.__name__ = expert_node_name(expert_type)
    return expert_node


@contextmanager
def _expert_span(runtime: Runtime[ResearchContext], expert: str) -> Iterator[None]:
    """The expert's span (``research_trace``), marked failed when the call raises."""
    research_trace = runtime.context.trace if runtime.context is not None else None
    with research_trace.expert(expert) if research_trace is not None else nullcontext():
        try:
            yield
        except Exception as exc:
            trace.get_current_span().set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise


def succeeded(state: ResearchGraphState) -> dict[str, dict[str, Any]]:
    """The data of each expert that succeeded (what the spec's ``results`` holds)."""
    outcomes = state.get("experts") or {}
    return {e: o.data for e, o in outcomes.items() if o.status == "success" and o.data is not None}


def failed(state: ResearchGraphState) -> list[str]:
    return sorted(e for e, o in (state.get("experts") or {}).items() if o.status != "success")


async def aggregator_node(state: ResearchGraphState) -> dict[str, Any]:
    """Outcomes are passed on unchanged; only the overall status is decided here."""
    results = succeeded(state)
    status = overall_status_of(state.get("selected_experts") or list(results), set(results))
    log.info("experts_gathered", overall_status=status, succeeded=sorted(results), failed=failed(state))
    return {"overall_status": status}


async def _stage(
    stage: str, runtime: Runtime[ResearchContext], call: Callable[[], Awaitable[dict[str, Any]]], shown: str
) -> tuple[StageOutcome, int]:
    """Runs the debate or the judge; its outcome, failed when the call raised, and the tokens it used. ``shown``:
    the field of the answer its log line names."""
    runtime.stream_writer({STARTED: DEBATE_NODE if stage == "debate" else JUDGE_NODE})
    started = time.perf_counter()
    research_trace = runtime.context.trace if runtime.context is not None else None
    try:
        with research_trace.stage(stage) if research_trace is not None else nullcontext():
            data = await call()
    except Exception as exc:
        log.error(f"{stage}_failed", error=error_text(exc))
        failed = StageOutcome("failed", error_text(exc), _elapsed_ms(started), usage=usage_of_failure(exc))
        return failed, spent_by_failure(exc)
    duration = _elapsed_ms(started)
    log.info(f"{stage}_done", ms=duration, **{shown: data.get(shown)})
    return StageOutcome("success", duration_ms=duration, data=data), tokens_used_by(data)


def _written(stage: str, outcome: StageOutcome, tokens: int = 0) -> dict[str, Any]:
    """The state update of a stage that ended: its data (empty unless it succeeded), how it ended, what it used."""
    key = "debate_outcome" if stage == "debate" else "verdict"
    written = {key: outcome.data or {}, "stages": {stage: replace(outcome, data=None)}}
    return written | ({"tokens_spent": tokens} if tokens else {})


def _not_funded(state: ResearchGraphState, stage: str) -> dict[str, Any]:
    error = budget_exhausted(state, stage)
    log.warning(f"{stage}_failed", error=error)
    return _written(stage, StageOutcome("failed", error=error, duration_ms=0.0))


def _budget_kwargs(remaining: int | None) -> dict[str, int]:
    """What a gateway is given of the budget (nothing without one: fakes of the spec's signature still fit)."""
    return {} if remaining is None else {"token_budget": remaining}


def _language_kwargs(state: ResearchGraphState) -> dict[str, str]:
    """The research's language for a gateway (nothing without one: fakes of the spec's signature still fit)."""
    language = state.get("language")
    return {} if language is None else {"language": language}


def create_debate_node(debate_gateway: IDebateGateway) -> Node:
    """Skipped when every expert failed; a retry's carried debate outcome is used instead of a new debate. An
    expert asked for that failed is sent as None (missing evidence)."""

    async def debate_node(state: ResearchGraphState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
        if state.get("overall_status") == "failed":
            log.info("debate_skipped", reason="no expert succeeded")
            return _written("debate", StageOutcome("skipped"))
        if runtime.context is not None and (carried := runtime.context.carried_debate_outcome):
            return _written("debate", StageOutcome("success", data=carried))
        results = {**dict.fromkeys(failed(state)), **succeeded(state)}
        remaining = remaining_budget(state)
        if remaining is not None and remaining <= 0:
            return _not_funded(state, "debate")
        asked = _budget_kwargs(remaining) | _language_kwargs(state)
        run = partial(debate_gateway.run_debate, state["symbol"], results, **asked)
        return _written("debate", *await _stage("debate", runtime, run, "direction"))

    return debate_node


def create_judge_node(judge_gateway: IJudgeGateway) -> Node:
    """Skipped without a debate outcome; the judge is told the research's day and which experts failed."""

    async def judge_node(state: ResearchGraphState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
        debate_outcome = state.get("debate_outcome")
        remaining = remaining_budget(state)
        if not debate_outcome:
            debate_error = (state.get("stages") or {}).get("debate", StageOutcome()).error or ""
            if TOKEN_BUDGET_EXHAUSTED in debate_error:
                return _not_funded(state, "verdict")
            log.info("verdict_skipped", reason="no debate outcome")
            return _written("verdict", StageOutcome("skipped"))
        if remaining is not None and remaining <= 0:
            return _not_funded(state, "verdict")
        analysis_date = state.get("analysis_date")
        context: dict[str, Any] = {
            "expert_results": succeeded(state),
            "analysis_date": analysis_date.isoformat() if analysis_date is not None else None,
            "failed_experts": failed(state),
            **_budget_kwargs(remaining),
            **_language_kwargs(state),
        }
        run = partial(judge_gateway.run_verdict, state["symbol"], debate_outcome, context=context)
        return _written("verdict", *await _stage("verdict", runtime, run, "action"))

    return judge_node
