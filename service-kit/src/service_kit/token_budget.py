"""The token budget a peer's caller gives one request (``X-Token-Budget``), and the metering of the request's
model calls against it: what they used is put on the answer (``usage``), or, when the request fails, on its
problem detail (``usage`` member), so the caller can count the calls of a failed stage too.

Only the coordinator is trusted with a budget (its ``service`` key, or every caller with ``AUTH_MODE=none``): its
budget is capped at ``REQUEST_TOKEN_BUDGET``, the most one request may use here. A client key's budget (the header,
or a bulk body's ``token_budget``) is ignored: it gets ``REQUEST_TOKEN_BUDGET``, and only when
``ALLOW_CLIENT_MODEL_CALLS`` is on; otherwise a route that calls the model answers it ``403
model_calls_not_allowed`` (tokens spent outside the coordinator would count in no client's daily quota). A
route takes ``RequestBudgets`` and meters with ``metered_request(budgets.grant(asked))``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from service_kit.api_keys import LOCAL_CLIENT, Client
from service_kit.llm.usage_meter import UsageMeter, metering
from service_kit.settings import DEFAULT_REQUEST_TOKEN_BUDGET, EngineSettings
from shared_contracts.errors import ModelCallsNotAllowedError, ServiceError

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


@dataclass(frozen=True)
class TokenBudgetPolicy:
    """An analysing service's rules for budgets: ``cap`` (REQUEST_TOKEN_BUDGET), whether its engine calls a model
    (``model_calls``), whether client keys may make it (``clients_allowed``: ALLOW_CLIENT_MODEL_CALLS)."""

    service: str
    cap: int = DEFAULT_REQUEST_TOKEN_BUDGET
    model_calls: bool = False
    clients_allowed: bool = False

    @classmethod
    def of(cls, service: str, settings: EngineSettings) -> TokenBudgetPolicy:
        return cls(service, settings.request_token_budget, settings.uses_llm, settings.allow_client_model_calls)


@dataclass(frozen=True)
class Budgets:
    """What one request's caller may spend on model calls here."""

    cap: int
    trusted: bool
    """The coordinator (a ``service`` key, or anyone with ``AUTH_MODE=none``): its budget is honoured."""

    def grant(self, asked: int | None) -> int:
        """The budget of the request's model calls (or of each bulk item's): ``asked`` from a trusted caller,
        never above ``cap``; ``cap`` otherwise."""
        return min(asked, self.cap) if self.trusted and asked is not None else self.cap


async def request_budgets(request: Request) -> Budgets:
    """The caller's ``Budgets`` (``app.state.token_budget_policy``); raises ``ModelCallsNotAllowedError`` for a
    client key when this service's model would run and client keys may not run it."""
    policy: TokenBudgetPolicy = getattr(request.app.state, "token_budget_policy", None) or TokenBudgetPolicy("peer")
    client: Client | None = request.scope.get("state", {}).get("client")
    trusted = client is not None and (client.is_service or client == LOCAL_CLIENT)
    if not trusted and policy.model_calls and not policy.clients_allowed:
        raise ModelCallsNotAllowedError(policy.service)
    return Budgets(policy.cap, trusted)


RequestBudgets = Annotated[Budgets, Depends(request_budgets)]
