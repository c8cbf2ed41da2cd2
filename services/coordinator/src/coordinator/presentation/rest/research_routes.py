"""POST /api/v1/coordinator/research — run the selected experts in parallel, then debate and judge."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from coordinator.application.research_orchestration_service import ResearchOrchestrationService
from coordinator.domain.model.viewer import Viewer
from coordinator.presentation.rest.caller import get_viewer
from coordinator.presentation.rest.errors import ResearchFailureProblem
from coordinator.presentation.rest.research_schemas import to_command, to_response_body
from shared_contracts.coordinator import ResearchRequestBody, ResearchResponseBody
from shared_contracts.problems import ProblemDetail
from shared_contracts.service.request_id import current_request_id

router = APIRouter(prefix="/api/v1/coordinator", tags=["coordinator"])

ALL_FAILED_FOR_THE_CALLER: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ResearchFailureProblem,
        "description": "Every expert failed because the research service has no data for the symbol (`code` "
        "symbol_not_found; the body also carries the full research response with each expert's error).",
    },
    422: {
        "model": ResearchFailureProblem,
        "description": "Every expert failed because too little data was public on the analysis date (`code` "
        "insufficient_history; `earliest_usable_date`: the earliest day one of them could work from, when known; "
        "the body also carries the full research response with each expert's error).",
    },
}
"""Every expert failed for the same client-side reason: answered as that mistake, not as a 500."""

_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ProblemDetail,
        "description": "A client mistake; `code` is one of symbol_required, invalid_symbol, experts_empty, "
        "unknown_expert, duplicate_expert, invalid_options, conflicting_analysis_date (analysis_date and "
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


def get_research_service(request: Request) -> ResearchOrchestrationService:
    service: ResearchOrchestrationService = request.app.state.container.research_service
    return service


@router.post(
    "/research",
    response_model=ResearchResponseBody,
    responses=_RESPONSES,
    summary="Research a symbol with the selected experts, then debate and judge",
)
async def run_research(
    body: ResearchRequestBody,
    service: Annotated[ResearchOrchestrationService, Depends(get_research_service)],
    viewer: Annotated[Viewer, Depends(get_viewer)],
) -> ResearchResponseBody:
    result = await service.execute(to_command(body, current_request_id(), viewer.client_id))
    return to_response_body(result)
