"""POST /api/v1/coordinator/research — run the selected experts in parallel, then debate and judge."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from coordinator.presentation.rest.dependencies import ResearchServiceDep, ViewerDep
from coordinator.presentation.rest.errors import ALL_FAILED_FOR_THE_CALLER, ResearchFailureProblem
from coordinator.presentation.rest.job_responses import (
    ASYNC_RESPONSES,
    IdempotencyKeyHeader,
    PreferHeader,
    accepted,
    prefers_async,
)
from coordinator.presentation.rest.research_schemas import to_command, to_response_body
from service_kit.request_id import current_request_id
from shared_contracts.coordinator import ResearchRequestBody, ResearchResponseBody
from shared_contracts.problems import ProblemDetail

router = APIRouter(prefix="/api/v1/coordinator", tags=["coordinator"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    **ASYNC_RESPONSES,
    400: {
        "model": ProblemDetail,
        "description": "A client mistake; `code` is one of symbol_required, invalid_symbol, experts_empty, "
        "unknown_expert, duplicate_expert, invalid_options, invalid_language (not zh or en), "
        "conflicting_analysis_date (analysis_date and "
        "options.technical_analyst.analysis_date differ), invalid_request (e.g. an analysis_date that is not "
        "YYYY-MM-DD), malformed_json.",
    },
    **ALL_FAILED_FOR_THE_CALLER,
    500: {
        "model": ResearchFailureProblem,
        "description": "Every expert failed, not all for one mistake of the caller (`code` all_experts_failed; "
        "the body also carries the full research response with each expert's error), or an unexpected error "
        "(`code` internal_error, logged).",
    },
}


@router.post(
    "/research",
    operation_id="runResearch",
    response_model=ResearchResponseBody,
    responses=_RESPONSES,
    summary="Research a symbol with the selected experts, then debate and judge",
)
async def run_research(
    body: ResearchRequestBody,
    service: ResearchServiceDep,
    viewer: ViewerDep,
    prefer: PreferHeader = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> ResearchResponseBody | JSONResponse:
    """Without `Prefer: respond-async` the answer waits for the verdict (the spec's contract); with it, 202 at
    once and the research runs as a job (follow `links.events`)."""
    command = to_command(body, current_request_id(), viewer.client_id)
    if prefers_async(prefer):
        return accepted(await service.submit(command, idempotency_key))
    return to_response_body(await service.execute(command, idempotency_key))
