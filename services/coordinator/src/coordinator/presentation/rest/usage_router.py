"""``GET /api/v1/coordinator/usage``: what the caller's researches spent on model calls, by day and model."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from coordinator.presentation.rest.dependencies import UsageAccountingDep, ViewerDep
from coordinator.presentation.rest.scorecard_router import DAY_OR_BLANK
from shared_contracts.coordinator import UsageReport
from shared_contracts.problems import ProblemDetail

router = APIRouter(prefix="/api/v1/coordinator", tags=["sessions"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ProblemDetail,
        "description": "`code` invalid_date (start or end not a YYYY-MM-DD day) or invalid_date_range (start after "
        "end).",
    },
    503: {"model": ProblemDetail, "description": "The session store is unavailable."},
}


@router.get(
    "/usage",
    response_model=UsageReport,
    responses=_RESPONSES,
    summary="LLM usage by day and model: calls, input and output tokens, and cost at LLM_PRICES",
    description="The caller's own researches (an admin key: every client's, one row per client). A day is the UTC "
    "day a session ended; a retry counts only the calls it made.",
)
async def usage(
    accounting: UsageAccountingDep,
    viewer: ViewerDep,
    start: Annotated[
        str | None, DAY_OR_BLANK, Query(description="First day, YYYY-MM-DD (default: 29 days before end).")
    ] = None,
    end: Annotated[str | None, DAY_OR_BLANK, Query(description="Last day, YYYY-MM-DD (default: today, UTC).")] = None,
) -> UsageReport:
    return await accounting.report(viewer, start, end)
