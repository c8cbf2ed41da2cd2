"""The research graph's state. Parallel expert nodes each write their own key of ``results`` /
``errors``; ``merge_dicts`` merges those writes."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict


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
