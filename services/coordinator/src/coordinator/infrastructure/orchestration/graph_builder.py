"""Builds and compiles the research graph:

START ─route_to_experts (Send per selected expert)─▶ <expert>_node ∥ ... ─▶ aggregator_node
      ─▶ debate_node ─▶ judge_node ─▶ END     (debate and judge gateways given)
      ─▶ debate_node ─▶ END                   (only the debate gateway)
      ─▶ END                                  (no debate gateway: the judge is skipped too)
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.infrastructure.orchestration.graph_nodes import (
    AGGREGATOR_NODE,
    DEBATE_NODE,
    JUDGE_NODE,
    aggregator_node,
    create_debate_node,
    create_expert_node,
    create_judge_node,
    expert_node_name,
    route_to_experts,
)
from coordinator.infrastructure.orchestration.graph_state import ResearchGraphState


def build_research_graph(gateway: IResearchExpertGateway, debate_gateway: Any = None, judge_gateway: Any = None) -> Any:
    graph = StateGraph(ResearchGraphState)
    expert_nodes = [expert_node_name(e) for e in ExpertType]
    for expert in ExpertType:
        graph.add_node(expert_node_name(expert), create_expert_node(expert, gateway))
        graph.add_edge(expert_node_name(expert), AGGREGATOR_NODE)
    graph.add_node(AGGREGATOR_NODE, aggregator_node)
    graph.add_conditional_edges(START, route_to_experts, [*expert_nodes, AGGREGATOR_NODE])

    if debate_gateway is None:
        graph.add_edge(AGGREGATOR_NODE, END)
        return graph.compile()
    graph.add_node(DEBATE_NODE, create_debate_node(debate_gateway))
    graph.add_edge(AGGREGATOR_NODE, DEBATE_NODE)
    if judge_gateway is None:
        graph.add_edge(DEBATE_NODE, END)
        return graph.compile()
    graph.add_node(JUDGE_NODE, create_judge_node(judge_gateway))
    graph.add_edge(DEBATE_NODE, JUDGE_NODE)
    graph.add_edge(JUDGE_NODE, END)
    return graph.compile()
