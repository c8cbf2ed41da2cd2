"""Domain errors → HTTP, once. Every client mistake in a research request is a 400 problem detail
with its own ``code``; every expert failing is a 500 whose body is the full research response
(``overall_status: "failed"`` and each expert's error) plus the problem fields."""

from __future__ import annotations

import structlog
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from coordinator.domain.exceptions import (
    AllExpertsFailedError,
    ResearchRequestError,
    SessionConflictError,
    SessionNotFoundError,
    SessionStoreUnavailableError,
)
from coordinator.presentation.rest.research_schemas import to_response_body
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail
from shared_contracts.service.request_id import current_request_id

log = structlog.get_logger(__name__)

STATUS_BY_EXCEPTION: dict[type[Exception], int] = {
    ResearchRequestError: 400,
    SessionNotFoundError: 404,
    SessionConflictError: 409,
    SessionStoreUnavailableError: 503,
}


def install_research_failure_handler(app: FastAPI) -> None:
    async def on_all_failed(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, AllExpertsFailedError)
        log.error("research_failed", path=request.url.path, code=exc.code, error=str(exc))
        problem = ProblemDetail(
            title="All experts failed", status=500, detail=str(exc), code=exc.code, request_id=current_request_id()
        ).model_dump(exclude_none=True)
        body = to_response_body(exc.result).model_dump(mode="json")  # nulls kept: the full response contract
        return JSONResponse({**problem, **body}, status_code=500, media_type=PROBLEM_CONTENT_TYPE)

    app.add_exception_handler(AllExpertsFailedError, on_all_failed)
