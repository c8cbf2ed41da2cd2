"""The research graph's state. Parallel expert nodes each write their own key of ``results`` /
``errors`` / ``failures``; ``merge_dicts`` merges those writes.

Beside the spec's fields: ``analysis_date``, the one day the research is made as of (every expert is
asked for it, the judge prices on it), and ``failures``, what the research service said of each expert it
refused (its problem's status and code), from which a research whose experts all failed for the caller's
mistake is answered as such."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal, TypedDict

from coordinator.domain.dtos.research_dtos import ExpertFailure


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    return {**(left or {}), **(right or {})}


class ResearchGraphState(TypedDict):
    symbol: str
    selected_experts: list[str]
    options: dict[str, dict[str, Any]]
    results: Annotated[dict[str, Any], merge_dicts]
    errors: Annotated[dict[str, str], merge_dicts]
    overall_status: Literal["completed", "partial", "failed"]
    debate_outcome: dict[str, Any]
    verdict: dict[str, Any]
    analysis_date: date | None
    failures: Annotated[dict[str, ExpertFailure], merge_dicts]
