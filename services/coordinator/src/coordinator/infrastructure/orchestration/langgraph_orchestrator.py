"""IResearchOrchestrationPort on LangGraph: runs the research graph for the request and turns its own stream
(``updates`` for what each node wrote, ``custom`` for a node about to call its peer) into the research's progress,
and its final state into a ``ResearchResult`` (a debate or verdict that did not succeed → None).

The graph is compiled once per shape (with the debate and the judge, or without both) and reused; a retry's carried
debate outcome reaches its nodes through the typed runtime context. With a checkpointer, a run with a ``run_id``
is checkpointed as thread ``run_id`` and ``resume`` continues it from its last checkpoint: the experts, the debate
or the verdict that had finished are not run again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from coordinator.domain.dtos.research_dtos import ExpertResultItem, ResearchRequest, ResearchResult
from coordinator.domain.exceptions import ResumeUnavailableError
from coordinator.domain.model.progress import (
    ExpertFinished,
    ExpertStarted,
    Progress,
    ResearchFinished,
    Stage,
    StageFinished,
    StageStarted,
)
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.infrastructure.orchestration.graph_builder import build_research_graph
from coordinator.infrastructure.orchestration.graph_nodes import (
    AGGREGATOR_NODE,
    DEBATE_NODE,
    JUDGE_NODE,
    STARTED,
    expert_of_node,
)
from coordinator.infrastructure.orchestration.graph_state import ResearchContext, ResearchGraphState
from coordinator.infrastructure.orchestration.research_trace import ResearchTrace

_STAGES: dict[str, tuple[Stage, str]] = {DEBATE_NODE: ("debate", "debate_outcome"), JUDGE_NODE: ("verdict", "verdict")}


class LangGraphResearchOrchestrator(IResearchOrchestrationPort):
    def __init__(
        self,
        gateway: IResearchExpertGateway,
        debate_gateway: IDebateGateway | None = None,
        judge_gateway: IJudgeGateway | None = None,
        checkpointer: BaseCheckpointSaver[Any] | None = None,
    ) -> None:
        self._gateway = gateway
        self._debate_gateway = debate_gateway
        self._judge_gateway = judge_gateway
        self._checkpointer = checkpointer
        self._graphs: dict[bool, Any] = {}

    def _graph(self, skip_debate: bool) -> Any:
        """The compiled graph of that shape, built on first use (skipping the debate skips the judge too)."""
        if skip_debate not in self._graphs:
            gateways = (None, None) if skip_debate else (self._debate_gateway, self._judge_gateway)
            self._graphs[skip_debate] = build_research_graph(self._gateway, *gateways, checkpointer=self._checkpointer)
        return self._graphs[skip_debate]

    async def forget(self, run_id: str) -> None:
        if self._checkpointer is not None:
            await self._checkpointer.adelete_thread(run_id)

    async def stream(
        self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
    ) -> AsyncGenerator[Progress]:
        graph = self._graph(request.skip_debate)
        durable = self._checkpointer is not None and run_id is not None
        config: RunnableConfig = {"configurable": {"thread_id": run_id}} if durable else {}
        initial: ResearchGraphState | None = _initial_state(request)
        if resume:
            if not durable or not (await graph.aget_state(config)).values:
                raise ResumeUnavailableError(f"no checkpoint of research {run_id} to resume from")
            initial = None  # LangGraph continues the thread from its last checkpoint
        research_trace = ResearchTrace(request.symbol)
        context = ResearchContext(carried_debate_outcome=request.carried_debate_outcome, trace=research_trace)
        final: dict[str, Any] = dict(initial or {})
        finished: set[Stage] = set()
        # A finished node's writes are saved as it ends; the step's checkpoint is written while the next step runs.
        durability: dict[str, Any] = {"durability": "async"} if durable else {}
        chunks = graph.astream(
            initial, config, context=context, stream_mode=["updates", "custom", "values"], **durability
        )
        try:
            async for mode, chunk in chunks:
                if mode == "values":
                    final = chunk
                elif mode == "custom" and (started := _started(chunk)) is not None:
                    yield started
                elif mode == "updates":
                    if AGGREGATOR_NODE in chunk:
                        research_trace.experts_gathered()
                    for node, update in chunk.items():
                        for progress in _finished(node, update or {}, request):
                            if isinstance(progress, StageFinished):
                                finished.add(progress.stage)
                            yield progress
        finally:
            research_trace.end()
        for stage in ("debate", "verdict"):
            if stage not in finished and not (stage == "debate" and request.carried_debate_outcome is not None):
                yield StageFinished(stage, StageOutcome("skipped"))
        yield ResearchFinished(_to_result(request, final))


def _initial_state(request: ResearchRequest) -> ResearchGraphState:
    selected = [e.value for e in request.experts]
    carried = {e: data for e, data in request.carried_results.items() if e in selected}
    refused = {
        e: ExpertOutcome("failed", None, item.error, failure=item.failure)
        for e, item in request.carried_failures.items()
        if e in selected and e not in carried
    }
    return {
        "symbol": request.symbol,
        "selected_experts": selected,
        "options": request.options,
        "analysis_date": request.analysis_date,
        "language": request.language,
        "experts": {**refused, **{e: ExpertOutcome("success", data) for e, data in carried.items()}},
        "results": carried,
        "errors": {e: outcome.error or "" for e, outcome in refused.items()},
        "overall_status": "failed",  # nothing has succeeded yet; the aggregator decides
        "token_budget": request.token_budget,
        "tokens_spent": 0,
    }


def _started(chunk: Any) -> Progress | None:
    """A node's ``started`` note (``{"started": node}``, written just before it calls its peer)."""
    node = chunk.get(STARTED) if isinstance(chunk, dict) else None
    if node is not None and (expert := expert_of_node(node)) is not None:
        return ExpertStarted(expert)
    if node in _STAGES:
        return StageStarted(_STAGES[node][0])
    return None


def _finished(node: str, update: dict[str, Any], request: ResearchRequest) -> list[Progress]:
    """What a node's update reports; a retry's carried debate is not reported (the caller stored it)."""
    if expert_of_node(node) is not None:
        return [ExpertFinished(expert, outcome) for expert, outcome in (update.get("experts") or {}).items()]
    if node in _STAGES:
        stage, key = _STAGES[node]
        outcome: StageOutcome | None = (update.get("stages") or {}).get(stage)
        if outcome is not None and not (stage == "debate" and request.carried_debate_outcome is not None):
            return [StageFinished(stage, replace(outcome, data=update.get(key) or None))]
    return []


def _to_result(request: ResearchRequest, final: dict[str, Any]) -> ResearchResult:
    outcomes: dict[str, ExpertOutcome] = final.get("experts") or {}
    items = []
    for expert in request.experts:
        outcome = outcomes.get(expert.value)
        if outcome is not None and outcome.status == "success":
            items.append(ExpertResultItem(expert_type=expert, status="success", data=outcome.data))
        else:
            error = outcome.error if outcome is not None else None
            failure = outcome.failure if outcome is not None else None
            items.append(
                ExpertResultItem(
                    expert_type=expert, status="failed", error=error or "the expert did not run", failure=failure
                )
            )
    return ResearchResult(
        symbol=request.symbol,
        overall_status=final.get("overall_status", "failed"),
        analysis_date=request.analysis_date,
        language=request.language,
        expert_results=items,
        debate_outcome=final.get("debate_outcome") or None,
        verdict=final.get("verdict") or None,
    )
