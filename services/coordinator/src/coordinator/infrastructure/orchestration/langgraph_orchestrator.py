"""IResearchOrchestrationPort on LangGraph: runs the research graph for the request and turns the
final state into a ``ResearchResult`` (empty debate outcome / verdict → None).

The graph is compiled once per shape (with or without debate and judge) and reused: compiling it cost
about 10 ms of CPU per request (benchmarks/README.md). What differs per request — the gateways wrapped to
report progress to this request's listener, a retry's carried debate outcome — reaches the nodes through
a context variable, which every task LangGraph starts for the request inherits.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from coordinator.domain.dtos.research_dtos import ExpertFailure, ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import StageOutcome
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.research_progress import IResearchProgressListener
from coordinator.infrastructure.orchestration.graph_builder import build_research_graph
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState
from coordinator.infrastructure.orchestration.progress_gateways import (
    ProgressRelay,
    ReportingDebateGateway,
    ReportingExpertGateway,
    ReportingJudgeGateway,
)


@dataclass(frozen=True)
class _RequestGateways:
    expert: IResearchExpertGateway
    debate: IDebateGateway | None
    judge: IJudgeGateway | None


_REQUEST_GATEWAYS: ContextVar[_RequestGateways] = ContextVar("coordinator_request_gateways")


class _CurrentExpertGateway(IResearchExpertGateway):
    """The compiled graph's gateway: delegates to the running request's gateway."""

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return await _REQUEST_GATEWAYS.get().expert.run_expert(expert_type, symbol, options)


class _CurrentDebateGateway(IDebateGateway):
    async def run_debate(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        gateway = _REQUEST_GATEWAYS.get().debate
        assert gateway is not None, "the graph with a debate node runs only for requests with a debate"
        return await gateway.run_debate(symbol, expert_results)


class _CurrentJudgeGateway(IJudgeGateway):
    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        gateway = _REQUEST_GATEWAYS.get().judge
        assert gateway is not None, "the graph with a judge node runs only for requests with a judge"
        return await gateway.run_verdict(symbol, debate_outcome, context=context)


class LangGraphResearchOrchestrator(IResearchOrchestrationPort):
    def __init__(
        self,
        gateway: IResearchExpertGateway,
        debate_gateway: Any = None,
        judge_gateway: Any = None,
    ) -> None:
        self._gateway = gateway
        self._debate_gateway = debate_gateway
        self._judge_gateway = judge_gateway
        self._graphs: dict[tuple[bool, bool], Any] = {}

    def _graph(self, with_debate: bool, with_judge: bool) -> Any:
        """The compiled graph of that shape (a judge node only after a debate node), built on first use."""
        key = (with_debate, with_debate and with_judge)
        graph = self._graphs.get(key)
        if graph is None:
            graph = build_research_graph(
                _CurrentExpertGateway(),
                _CurrentDebateGateway() if key[0] else None,
                _CurrentJudgeGateway() if key[1] else None,
            )
            self._graphs[key] = graph
        return graph

    async def run(self, request: ResearchRequest, listener: IResearchProgressListener | None = None) -> ResearchResult:
        relay = ProgressRelay(listener)
        selected = [e.value for e in request.experts]
        # Carried from a retry's source session: not run again, and not reported (the caller stores
        # them with the new session, with their original audit data).
        carried = {e: data for e, data in request.carried_results.items() if e in selected}

        debate_gw, judge_gw = (None, None) if request.skip_debate else (self._debate_gateway, self._judge_gateway)
        gateways = _RequestGateways(
            ReportingExpertGateway(self._gateway, relay),
            ReportingDebateGateway(debate_gw, relay, request.carried_debate_outcome) if debate_gw is not None else None,
            ReportingJudgeGateway(judge_gw, relay) if judge_gw is not None else None,
        )
        graph = self._graph(gateways.debate is not None, gateways.judge is not None)
        initial: ResearchGraphState = {
            "symbol": request.symbol,
            "selected_experts": selected,
            "options": request.options,
            "results": carried,
            "errors": {},
            "overall_status": "failed",  # nothing has succeeded yet; the aggregator decides
            "debate_outcome": {},
            "verdict": {},
            "analysis_date": request.analysis_date,
            "failures": {},
        }
        token = _REQUEST_GATEWAYS.set(gateways)
        try:
            final: dict[str, Any] = await graph.ainvoke(initial)
            if not relay.debate_reported:
                relay.debate(StageOutcome("skipped"), None)
            if not relay.verdict_reported:
                relay.verdict(StageOutcome("skipped"), None)
        finally:
            _REQUEST_GATEWAYS.reset(token)
            # The stage writes run beside the graph; all of them have ended before this returns or raises.
            await relay.settled()
        if relay.failure is not None:
            raise relay.failure
        return _to_result(request, final)


def _to_result(request: ResearchRequest, final: dict[str, Any]) -> ResearchResult:
    results: dict[str, Any] = final.get("results") or {}
    errors: dict[str, str] = final.get("errors") or {}
    failures: dict[str, ExpertFailure] = final.get("failures") or {}
    items = [
        ExpertResultItem(expert_type=e, status="success", data=results[e.value])
        if e.value in results
        else ExpertResultItem(
            expert_type=e,
            status="failed",
            error=errors.get(e.value, "the expert did not run"),
            failure=failures.get(e.value),
        )
        for e in request.experts
    ]
    return ResearchResult(
        symbol=request.symbol,
        overall_status=final["overall_status"],
        analysis_date=request.analysis_date,
        expert_results=items,
        debate_outcome=final.get("debate_outcome") or None,
        verdict=final.get("verdict") or None,
    )
