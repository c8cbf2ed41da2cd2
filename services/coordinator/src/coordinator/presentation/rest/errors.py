"""The answer to a research in which every expert failed (other errors are problem details whose status is
``PROBLEM_STATUS[code]``). Every expert failing is answered with the full research response
(``overall_status: "failed"`` and each expert's error) plus the problem fields: 500 ``all_experts_failed``,
or, when every expert failed for a mistake of the caller (the error's ``reason``), 404 ``symbol_not_found`` /
``data_unavailable``, 422 ``insufficient_history`` (with ``earliest_usable_date`` when known) or 422
``token_budget_exhausted``."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import Field

from coordinator.domain.exceptions import (
    AllExpertsFailedError,
    QueueFullError,
    TokenQuotaExceededError,
    TooManyStreamsError,
)
from coordinator.presentation.rest.event_streams import StreamEnded, stream_ended_response
from coordinator.presentation.rest.research_schemas import to_response_body
from service_kit.app_factory import ExceptionHandler
from service_kit.problems import problem_response
from service_kit.request_id import current_request_id
from shared_contracts.coordinator import ResearchResponseBody
from shared_contracts.errors import (
    DataUnavailableError,
    InsufficientHistoryError,
    ServiceError,
    SymbolNotFoundError,
    TokenBudgetExhaustedError,
)
from shared_contracts.experts import IsoDate
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail, status_of_code

log = structlog.get_logger(__name__)

# The title of each way every expert can fail (its ``reason``; None: a fault).
ALL_FAILED_TITLE: dict[type[ServiceError] | None, str] = {
    SymbolNotFoundError: "Symbol not found",
    DataUnavailableError: "No data for these experts",
    InsufficientHistoryError: "Insufficient history",
    TokenBudgetExhaustedError: "Token budget spent",
    None: "All experts failed",
}


class ResearchFailureProblem(ProblemDetail, ResearchResponseBody):
    """The answer to a research in which every expert failed (``application/problem+json``): the problem's
    members and the full research response, each expert's error included."""

    earliest_usable_date: IsoDate | None = Field(
        default=None,
        description="insufficient_history only: the earliest day one of the experts could work from, when known.",
    )


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


async def research_failure_response(request: Request, exc: Exception) -> JSONResponse:
    """The problem of an ``AllExpertsFailedError`` plus the full research response body."""
    assert isinstance(exc, AllExpertsFailedError)
    code = exc.answer_code
    status = status_of_code(code)
    report = log.error if status >= 500 else log.info
    report("research_failed", path=request.url.path, code=code, error=str(exc))
    body = to_response_body(exc.result).model_dump(mode="json")  # nulls kept: the full response contract
    return JSONResponse({**all_failed_problem(exc), **body}, status_code=status, media_type=PROBLEM_CONTENT_TYPE)


def all_failed_problem(exc: AllExpertsFailedError) -> dict[str, Any]:
    """The problem members of the answer to a research in which every expert failed (its body aside)."""
    code = exc.answer_code
    problem = ProblemDetail(
        title=ALL_FAILED_TITLE[exc.reason],
        status=status_of_code(code),
        detail=str(exc),
        code=code,
        request_id=current_request_id(),
    ).model_dump(exclude_none=True)
    if exc.earliest_usable_date is not None:
        problem["earliest_usable_date"] = exc.earliest_usable_date.isoformat()
    return problem


async def retry_later_response(request: Request, exc: Exception) -> JSONResponse:
    """503 ``queue_full`` or 429 ``token_quota_exceeded``, with ``Retry-After``."""
    assert isinstance(exc, QueueFullError | TokenQuotaExceededError)
    log.warning("research_refused", path=request.url.path, code=exc.code, error=str(exc))
    headers = {"Retry-After": str(exc.retry_after_seconds)}
    return problem_response(status_of_code(exc.code), exc.code, str(exc), headers=headers)


STREAMS_REFUSED: dict[str, Any] = {
    "description": "`code` too_many_streams: the client follows as many event streams as allowed here "
    "(EVENT_STREAMS_PER_CLIENT), or all clients together do (EVENT_STREAMS_TOTAL); with `Retry-After`.",
    "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/ProblemDetail"}}},
}


async def too_many_streams_response(request: Request, exc: Exception) -> JSONResponse:
    """429 ``too_many_streams`` with ``Retry-After``; the connection is closed after it, so that a client opening
    streams beyond its share does not keep the connections either."""
    assert isinstance(exc, TooManyStreamsError)
    log.warning("stream_refused", path=request.url.path, error=str(exc))
    headers = {"Retry-After": str(exc.retry_after_seconds), "Connection": "close"}
    return problem_response(status_of_code(exc.code), exc.code, str(exc), headers=headers)


EXCEPTION_HANDLERS: dict[type[Exception], ExceptionHandler] = {
    AllExpertsFailedError: research_failure_response,
    QueueFullError: retry_later_response,
    TokenQuotaExceededError: retry_later_response,
    TooManyStreamsError: too_many_streams_response,
    StreamEnded: stream_ended_response,  # not an error: a reconnection after an event stream's end, 204
}
