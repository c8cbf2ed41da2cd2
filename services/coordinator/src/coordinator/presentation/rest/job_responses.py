"""Asynchronous submission on the wire (RFC 7240): ``Prefer: respond-async`` → ``202 Accepted`` with the session's
``Location``, ``Preference-Applied`` and a body with its links; ``Idempotency-Key`` is read here."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Header
from fastapi.responses import JSONResponse

from coordinator.application.services.research_orchestration_service import Submission
from shared_contracts.coordinator import ResearchAccepted, job_links
from shared_contracts.problems import ProblemDetail

RESPOND_ASYNC = "respond-async"
MAX_IDEMPOTENCY_KEY = 200

PreferHeader = Annotated[
    str | None, Header(description="`respond-async`: answer 202 at once and run the research as a job (RFC 7240).")
]
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=MAX_IDEMPOTENCY_KEY,
        description="The same key and request (this client, within 24 h) → the same session, not a second run.",
    ),
]

ASYNC_RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {
        "model": ResearchAccepted,
        "description": "With `Prefer: respond-async`: the session is queued (or a session made earlier with the same "
        "`Idempotency-Key`); `Location` names it, `Preference-Applied: respond-async`. Follow it at its `events`.",
    },
    409: {
        "model": ProblemDetail,
        "description": "`code` idempotency_key_reused: the key was used for another request (the problem's "
        "`session_id` names that session).",
    },
    503: {
        "model": ProblemDetail,
        "description": "`code` queue_full: too many researches are waiting (`Retry-After` says when to try "
        "again), or session_store_unavailable.",
    },
}


def prefers_async(prefer: str | None) -> bool:
    """Whether a ``Prefer`` header asks for ``respond-async`` (among its comma-separated preferences)."""
    return prefer is not None and any(p.split(";")[0].strip().lower() == RESPOND_ASYNC for p in prefer.split(","))


def accepted(submission: Submission) -> JSONResponse:
    links = job_links(submission.session_id)
    body = ResearchAccepted(
        session_id=submission.session_id,
        status=submission.status,
        queue_position=submission.queue_position,
        links=links,
    )
    headers = {"Location": links.self_, "Preference-Applied": RESPOND_ASYNC}
    return JSONResponse(body.model_dump(mode="json", by_alias=True), status_code=202, headers=headers)
