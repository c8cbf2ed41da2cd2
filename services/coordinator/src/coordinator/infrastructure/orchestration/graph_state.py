"""The research graph's state and its per-run context.

``experts``: one ``ExpertOutcome`` per expert that has ended (a retry's carried results are there from the start);
parallel expert nodes each write their own key and ``merge_dicts`` merges those writes. ``results`` and ``errors``
are the spec's views of the same outcomes (an expert's data, or its error text), written by the same update.
``debate_outcome`` and ``verdict`` are the spec's: the debate's outcome and the verdict, empty unless they
succeeded; ``stages`` holds how the debate and the verdict ended (status, error, duration; their data is in those
two fields). ``analysis_date`` is the one day the research is made as of (every expert is asked for it, the judge
prices on it); ``language`` the one every stage writes in (None: each service's REPORT_LANGUAGE).
``token_budget``: the tokens the research's model calls may use (None: no cap); ``tokens_spent``:
what the stages run so far used (each node adds its own; a retry's carried stages add nothing), checkpointed with
the rest, so a resumed research goes on with what it had left. ``ResearchContext`` is what a run is given beside its
state (LangGraph's typed runtime context, not checkpointed): a retry's carried debate outcome, and the run's spans
(``research_trace``)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, Literal, TypedDict

from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.infrastructure.orchestration.research_trace import ResearchTrace


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    return {**(left or {}), **(right or {})}


class ResearchGraphState(TypedDict, total=False):
    symbol: str
    selected_experts: list[str]
    options: dict[str, dict[str, Any]]
    analysis_date: date | None
    language: str | None
    results: Annotated[dict[str, Any], merge_dicts]
    errors: Annotated[dict[str, str], merge_dicts]
    experts: Annotated[dict[str, ExpertOutcome], merge_dicts]
    overall_status: Literal["completed", "partial", "failed"]
    debate_outcome: dict[str, Any]
    verdict: dict[str, Any]
    stages: Annotated[dict[str, StageOutcome], merge_dicts]
    token_budget: int | None
    tokens_spent: Annotated[int, operator.add]


@dataclass(frozen=True)
class ResearchContext:
    carried_debate_outcome: dict[str, Any] | None = None
    trace: ResearchTrace | None = None
