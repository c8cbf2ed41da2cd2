"""The token budget a peer's caller gives one request (``X-Token-Budget``), and the metering of the request's
model calls against it: what they used is put on the answer (``usage``), or, when the request fails, on its
problem detail (``usage`` member), so the caller can count the calls of a failed stage too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import Header

from service_kit.llm.usage_meter import UsageMeter, metering
from shared_contracts.errors import ServiceError

TOKEN_BUDGET_HEADER = "X-Token-Budget"

TokenBudgetHeader = Annotated[
    int | None,
    Header(
        alias=TOKEN_BUDGET_HEADER,
        ge=0,
        # The coordinator's header to its peers, not a client's: left out of the API documents (the routes' 422
        # says what it does), and out of the property-based runs, whose coverage phase paired it with bodies its
        # generator could not build for the judge (a bare 0).
        include_in_schema=False,
        description="Tokens the model calls of this request may still use (the coordinator's research budget); "
        "once they are spent no further model call is made and the request fails with token_budget_exhausted. "
        "Absent: no budget.",
    ),
]


@contextmanager
def metered_request(budget: int | None) -> Iterator[UsageMeter]:
    """Meters the model calls made inside the block against ``budget``; a ``ServiceError`` leaving it carries
    the usage so far in its problem detail."""
    with metering(budget) as meter:
        try:
            yield meter
        except ServiceError as exc:
            exc.problem_extra = {**(exc.problem_extra or {}), "usage": meter.usage.model_dump(mode="json")}
            raise
