"""POST /api/v1/debate/run — a debate on expert results, standalone (curl it with research's output); and
POST /api/v1/debate/run/bulk — many debates in one call."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter, Request

from debate.application.services.debate_service import DebateService
from debate.domain.dtos.debate_input import DebateInput
from debate.presentation.rest.debate_schemas import DebateOutcome, DebateRunRequest, to_debate_input
from debate.presentation.rest.dependencies import DebateServicesDep
from service_kit.bulk import answer_each
from service_kit.languages import ByLanguage
from service_kit.token_budget import RequestBudgets, TokenBudgetHeader, metered_request
from shared_contracts.bulk import BulkAnswer, DebateBulkRequest
from shared_contracts.problems import ProblemDetail

log = structlog.get_logger(__name__)

router = APIRouter(prefix="/api/v1/debate", tags=["debate"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ProblemDetail, "description": description}
    for status, description in {
        400: "symbol missing/invalid, expert_results empty, an expert result that cannot be read, or a language "
        "other than zh or en (invalid_language)",
        403: "model_calls_not_allowed: a client key asked for the LLM engine's model calls",
        422: "token_budget_exhausted: X-Token-Budget allows no further model call",
        500: "an agent's LLM output could not be parsed (llm_output_invalid)",
        502: "the LLM endpoint refused the call",
        503: "the LLM endpoint is unavailable",
        504: "the LLM endpoint timed out",
    }.items()
}


async def _debate_metered(
    body: DebateRunRequest, services: ByLanguage[DebateService], token_budget: int | None
) -> DebateOutcome:
    """One debate, in the request's language, with the ``usage`` of the model calls it took (bull and bear share
    the budget)."""
    service = services(body.language)
    debate_input = to_debate_input(body)
    with metered_request(token_budget) as meter:
        outcome = await service.run(debate_input)
    outcome = outcome.model_copy(update={"usage": meter.usage})
    log.info(
        "debate_done",
        symbol=outcome.symbol,
        direction=outcome.direction,
        confidence=outcome.confidence,
        experts=len(debate_input.expert_summaries),
        engine=outcome.engine.kind,
        fallback=outcome.engine.fallback_reason is not None,
    )
    return outcome


@router.post(
    "/run",
    operation_id="runDebate",
    response_model=DebateOutcome,
    summary="Run a bull/bear debate on expert results",
    responses=_ERRORS,
)
async def run_debate(
    body: DebateRunRequest, services: DebateServicesDep, budgets: RequestBudgets, token_budget: TokenBudgetHeader = None
) -> DebateOutcome:
    """The outcome, written in the request's ``language``, with the ``usage`` of the model calls it took (bull and
    bear share the budget)."""
    return await _debate_metered(body, services, budgets.grant(token_budget))


@router.post(
    "/run/bulk",
    operation_id="runDebateBulk",
    response_model=BulkAnswer,
    summary="Run many debates, one per item",
    responses={
        400: {
            "model": ProblemDetail,
            "description": "no items or more than 1,000; an item not a debate request (or in no known language)",
        },
        403: {"model": ProblemDetail, "description": "model_calls_not_allowed: a client key asked for model calls"},
    },
)
async def run_debate_bulk(
    body: DebateBulkRequest, request: Request, services: DebateServicesDep, budgets: RequestBudgets
) -> BulkAnswer:
    """Each item's outcome as ``runDebate`` returns it, or the problem it answers with, in the order asked;
    ``token_budget`` is each item's."""
    budget = budgets.grant(body.token_budget)

    async def one(item: DebateRunRequest) -> dict[str, Any]:
        outcome = await _debate_metered(item, services, budget)
        return outcome.model_dump(mode="json", by_alias=True)

    def check(item: DebateRunRequest) -> DebateInput:
        services.language(item.language)
        return to_debate_input(item)

    return await answer_each(body.items, one, _symbol_of, path=request.url.path, check=check)


def _symbol_of(item: DebateRunRequest) -> str:
    return item.symbol or ""
