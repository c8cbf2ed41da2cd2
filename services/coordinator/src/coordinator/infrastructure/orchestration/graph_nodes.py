"""The research graph's nodes: plain async functions; gateways come in through the factories.

Nodes never let an exception escape (in LangGraph an exception in one ``Send`` branch cancels its
siblings): a failing expert is recorded in ``errors`` (and, when the research service explained it with a
problem detail, in ``failures``); a failing debate or judge leaves an empty dict.

Every expert is asked for the research's ``analysis_date`` (``ExpertOptions``); the judge is told it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import date
from typing import Any, Protocol

import structlog
from langgraph.types import Send

from coordinator.domain.dtos.research_dtos import ExpertFailure, overall_status_of
from coordinator.domain.exceptions import PeerResponseError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState
from shared_contracts.experts import is_iso_date
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)


class Node(Protocol):
    """A graph node: takes the state, returns the update."""

    def __call__(self, state: ResearchGraphState) -> Awaitable[dict[str, Any]]: ...


AGGREGATOR_NODE = "aggregator_node"
DEBATE_NODE = "debate_node"
JUDGE_NODE = "judge_node"


def expert_node_name(expert: ExpertType | str) -> str:
    return f"{ExpertType(expert).value}_node"


def route_to_experts(state: ResearchGraphState) -> list[Send] | str:
    """One ``Send`` per selected expert that has no result yet (a retry carries the others'); with
    none left to run, straight to the aggregator."""
    pending = [e for e in state["selected_experts"] if e not in (state.get("results") or {})]
    if not pending:
        return AGGREGATOR_NODE
    return [Send(expert_node_name(e), state) for e in pending]


def create_expert_node(expert_type: ExpertType, gateway: IResearchExpertGateway) -> Node:
    async def expert_node(state: ResearchGraphState) -> dict[str, Any]:
        try:
            result = await gateway.run_expert(
                expert_type=expert_type,
                symbol=state["symbol"],
                options=ExpertOptions(
                    state["options"].get(expert_type.value, {}), analysis_date=state.get("analysis_date")
                ),
            )
        except Exception as exc:
            error = error_text(exc)
            log.warning("expert_failed", expert=expert_type.value, error=error)
            update: dict[str, Any] = {"errors": {expert_type.value: error}}
            if (failure := _failure_of(exc)) is not None:
                update["failures"] = {expert_type.value: failure}
            return update
        return {"results": {expert_type.value: result}}

    expert_node.__name__ = expert_node_name(expert_type)
    return expert_node


def _failure_of(exc: Exception) -> ExpertFailure | None:
    """What the research service said of a refused expert: its status, problem code and, when it named
    one, the earliest day its data can support (``insufficient_history``)."""
    if not isinstance(exc, PeerResponseError):
        return None
    earliest = exc.extensions.get("earliest_usable_date")
    return ExpertFailure(
        status=exc.status,
        code=exc.peer_code,
        earliest_usable_date=date.fromisoformat(earliest)
        if isinstance(earliest, str) and is_iso_date(earliest)
        else None,
    )


async def aggregator_node(state: ResearchGraphState) -> dict[str, Any]:
    """Results are passed on unchanged; only the overall status is decided here."""
    results = state.get("results") or {}
    selected = state.get("selected_experts") or list(results)
    status = overall_status_of(selected, set(results))
    log.info(
        "experts_gathered", overall_status=status, succeeded=sorted(results), failed=sorted(state.get("errors") or {})
    )
    return {"overall_status": status}


def create_debate_node(debate_gateway: IDebateGateway) -> Node:
    async def debate_node(state: ResearchGraphState) -> dict[str, Any]:
        if state.get("overall_status") == "failed":
            log.info("debate_skipped", reason="no expert succeeded")
            return {"debate_outcome": {}}
        try:
            failed = dict.fromkeys(state.get("errors") or {})  # None: asked for, failed (missing evidence)
            outcome = await debate_gateway.run_debate(state["symbol"], {**failed, **state["results"]})
        except Exception as exc:
            log.error("debate_failed", error=error_text(exc))
            return {"debate_outcome": {}}
        return {"debate_outcome": outcome}

    return debate_node


def create_judge_node(judge_gateway: IJudgeGateway) -> Node:
    async def judge_node(state: ResearchGraphState) -> dict[str, Any]:
        debate_outcome = state.get("debate_outcome")
        if not debate_outcome:
            log.info("verdict_skipped", reason="no debate outcome")
            return {"verdict": {}}
        try:
            analysis_date = state.get("analysis_date")
            context = {
                "expert_results": state.get("results") or {},
                "analysis_date": analysis_date.isoformat() if analysis_date is not None else None,
                "failed_experts": sorted(state.get("errors") or {}),
            }
            verdict = await judge_gateway.run_verdict(state["symbol"], debate_outcome, context=context)
        except Exception as exc:
            log.error("verdict_failed", error=error_text(exc))
            return {"verdict": {}}
        return {"verdict": verdict}

    return judge_node
