"""IResearchOrchestrationPort on LangGraph: builds the graph for the request, runs it, and turns the
final state into a ``ResearchResult`` (empty debate outcome / verdict → None)."""

from __future__ import annotations

from typing import Any

from coordinator.domain.dtos.research_dtos import ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.model.session import StageOutcome
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

    async def run(self, request: ResearchRequest, listener: IResearchProgressListener | None = None) -> ResearchResult:
        relay = ProgressRelay(listener)
        selected = [e.value for e in request.experts]
        # Carried from a retry's source session: not run again, and not reported (the caller stores
        # them with the new session, with their original audit data).
        carried = {e: data for e, data in request.carried_results.items() if e in selected}

        debate_gw, judge_gw = (None, None) if request.skip_debate else (self._debate_gateway, self._judge_gateway)
        graph = build_research_graph(
            ReportingExpertGateway(self._gateway, relay),
            ReportingDebateGateway(debate_gw, relay, request.carried_debate_outcome) if debate_gw is not None else None,
            ReportingJudgeGateway(judge_gw, relay) if judge_gw is not None else None,
        )
        initial: ResearchGraphState = {
            "symbol": request.symbol,
            "selected_experts": selected,
            "options": request.options,
            "results": carried,
            "errors": {},
            "overall_status": "failed",  # nothing has succeeded yet; the aggregator decides
            "debate_outcome": {},
            "verdict": {},
        }
        final: dict[str, Any] = await graph.ainvoke(initial)

        if not relay.debate_reported:
            await relay.debate(StageOutcome("skipped"), None)
        if not relay.verdict_reported:
            await relay.verdict(StageOutcome("skipped"), None)
        if relay.failure is not None:
            raise relay.failure
        return _to_result(request, final)


def _to_result(request: ResearchRequest, final: dict[str, Any]) -> ResearchResult:
    results: dict[str, Any] = final.get("results") or {}
    errors: dict[str, str] = final.get("errors") or {}
    items = [
        ExpertResultItem(expert_type=e, status="success", data=results[e.value])
        if e.value in results
        else ExpertResultItem(expert_type=e, status="failed", error=errors.get(e.value, "the expert did not run"))
        for e in request.experts
    ]
    return ResearchResult(
        symbol=request.symbol,
        overall_status=final["overall_status"],
        expert_results=items,
        debate_outcome=final.get("debate_outcome") or None,
        verdict=final.get("verdict") or None,
    )
