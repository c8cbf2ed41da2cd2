"""IResearchOrchestrationPort on LangGraph: runs the research graph for the request and turns the final state
into a ``ResearchResult`` (empty debate outcome / verdict → None).

The graph is compiled once per shape (with the debate and the judge, or without both) and reused; the request's
progress relay and a retry's carried debate outcome reach its nodes through ``config["configurable"]``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from coordinator.domain.dtos.research_dtos import ExpertFailure, ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.research_progress import IResearchProgressListener
from coordinator.infrastructure.orchestration.graph_builder import build_research_graph
from coordinator.infrastructure.orchestration.graph_nodes import CARRIED_DEBATE_OUTCOME, PROGRESS, ProgressRelay
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState


class LangGraphResearchOrchestrator(IResearchOrchestrationPort):
    def __init__(
        self,
        gateway: IResearchExpertGateway,
        debate_gateway: IDebateGateway | None = None,
        judge_gateway: IJudgeGateway | None = None,
    ) -> None:
        self._gateway = gateway
        self._debate_gateway = debate_gateway
        self._judge_gateway = judge_gateway
        self._graphs: dict[bool, Any] = {}

    def _graph(self, skip_debate: bool) -> Any:
        """The compiled graph of that shape, built on first use (skipping the debate skips the judge too)."""
        if skip_debate not in self._graphs:
            gateways = (None, None) if skip_debate else (self._debate_gateway, self._judge_gateway)
            self._graphs[skip_debate] = build_research_graph(self._gateway, *gateways)
        return self._graphs[skip_debate]

    async def run(self, request: ResearchRequest, listener: IResearchProgressListener | None = None) -> ResearchResult:
        """Carried results and a carried debate outcome (a retry's) are used, not run again nor reported."""
        relay = ProgressRelay(listener)
        selected = [e.value for e in request.experts]
        initial: ResearchGraphState = {
            "symbol": request.symbol,
            "selected_experts": selected,
            "options": request.options,
            "results": {e: data for e, data in request.carried_results.items() if e in selected},
            "errors": {},
            "overall_status": "failed",  # nothing has succeeded yet; the aggregator decides
            "debate_outcome": {},
            "verdict": {},
            "analysis_date": request.analysis_date,
            "failures": {},
        }
        config: RunnableConfig = {
            "configurable": {PROGRESS: relay, CARRIED_DEBATE_OUTCOME: request.carried_debate_outcome}
        }
        try:
            final: dict[str, Any] = await self._graph(request.skip_debate).ainvoke(initial, config)
            relay.skip_unreported()
        finally:
            await relay.settled()  # the stage writes run beside the graph: all have ended before this returns
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
