"""Builds and compiles the research graph:

START ─route_to_experts (Send per selected expert)─▶ <expert>_node ∥ ... ─▶ aggregator_node
      ─▶ debate_node ─▶ judge_node ─▶ END     (debate and judge gateways given)
      ─▶ debate_node ─▶ END                   (only the debate gateway)
      ─▶ END                                  (no debate gateway: the judge is skipped too)

With a ``checkpointer`` each run is checkpointed under its ``thread_id`` (the session id) and can be resumed.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.infrastructure.orchestration import graph_nodes as nodes
from coordinator.infrastructure.orchestration.graph_state import ResearchContext, ResearchGraphState


def build_research_graph(
    gateway: IResearchExpertGateway,
    debate_gateway: Any = None,
    judge_gateway: Any = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> Any:
    graph = StateGraph(ResearchGraphState, context_schema=ResearchContext)
    for expert in ExpertType:
        graph.add_node(nodes.expert_node_name(expert), nodes.create_expert_node(expert, gateway))
        graph.add_edge(nodes.expert_node_name(expert), nodes.AGGREGATOR_NODE)
    graph.add_node(nodes.AGGREGATOR_NODE, nodes.aggregator_node)
    targets = [*map(nodes.expert_node_name, ExpertType), nodes.AGGREGATOR_NODE]
    graph.add_conditional_edges(START, nodes.route_to_experts, targets)
    last = nodes.AGGREGATOR_NODE
    if debate_gateway is not None:
        graph.add_node(nodes.DEBATE_NODE, nodes.create_debate_node(debate_gateway))
        graph.add_edge(last, last := nodes.DEBATE_NODE)
        if judge_gateway is not None:
            graph.add_node(nodes.JUDGE_NODE, nodes.create_judge_node(judge_gateway))
            graph.add_edge(last, last := nodes.JUDGE_NODE)
    graph.add_edge(last, END)
    return graph.compile(checkpointer=checkpointer)
