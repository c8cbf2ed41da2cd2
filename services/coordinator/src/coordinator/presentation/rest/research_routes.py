"""POST /api/v1/coordinator/research — run the selected experts in parallel, then debate and judge."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from coordinator.application.research_orchestration_service import ResearchOrchestrationService
from coordinator.presentation.rest.research_schemas import to_command, to_response_body
from shared_contracts.coordinator import ResearchRequestBody, ResearchResponseBody
from shared_contracts.problems import ProblemDetail
from shared_contracts.service.request_id import current_request_id

router = APIRouter(prefix="/api/v1/coordinator", tags=["coordinator"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ProblemDetail,
        "description": "A client mistake; `code` is one of symbol_required, experts_empty, unknown_expert, "
        "duplicate_expert, invalid_options, invalid_request, malformed_json.",
    },
    500: {
        "description": "Every expert failed (`code` all_experts_failed; the body also carries the full research "
        "response with each expert's error), or an unexpected error (`code` internal_error, logged).",
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
) -> ResearchResponseBody:
    result = await service.execute(to_command(body, current_request_id()))
    return to_response_body(result)
