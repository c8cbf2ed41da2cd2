"""POST /api/v1/judge/verdict: a verdict from a debate outcome (body: ``JudgeInput``); POST
/api/v1/judge/verdict/bulk: many verdicts in one call."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.judge_input import JudgeInput as DomainJudgeInput
from judge.presentation.rest.dependencies import JudgeServicesDep
from service_kit.bulk import answer_each
from service_kit.languages import ByLanguage
from service_kit.token_budget import RequestBudgets, TokenBudgetHeader, metered_request
from shared_contracts.bulk import BulkAnswer, JudgeBulkRequest
from shared_contracts.judge import JudgeInput, Verdict
from shared_contracts.problems import ProblemDetail

router = APIRouter(prefix="/api/v1/judge", tags=["judge"])

_ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": ProblemDetail, "description": description}
    for status, description in {
        400: "Invalid input: missing symbol, unknown direction, confidence outside [0, 1], unknown field; a language "
        "other than zh or en (invalid_language).",
        403: "model_calls_not_allowed: a client key asked for the LLM engine's model calls.",
        422: "token_budget_exhausted: X-Token-Budget allows no further model call.",
        500: "The engine's answer is unusable (llm_output_invalid).",
        502: "The LLM endpoint refused the call.",
        503: "The LLM endpoint is unavailable.",
        504: "The LLM endpoint did not answer in time.",
    }.items()
}


async def _verdict_metered(body: JudgeInput, services: ByLanguage[JudgeService], token_budget: int | None) -> Verdict:
    """One verdict, in the request's language, with the ``usage`` of the model calls it took."""
    service = services(body.language)
    with metered_request(token_budget) as meter:
        result = await service.run(DomainJudgeInput.from_wire(body))
    return result.model_copy(update={"usage": meter.usage})


@router.post(
    "/verdict", operation_id="runVerdict", response_model=Verdict, responses=_ERRORS, summary="Judge a debate outcome"
)
async def verdict(
    body: JudgeInput, services: JudgeServicesDep, budgets: RequestBudgets, token_budget: TokenBudgetHeader = None
) -> Verdict:
    """The verdict, written in the request's ``language``, with the ``usage`` of the model calls it took."""
    return await _verdict_metered(body, services, budgets.grant(token_budget))


@router.post(
    "/verdict/bulk",
    operation_id="runVerdictBulk",
    response_model=BulkAnswer,
    responses={
        400: {
            "model": ProblemDetail,
            "description": "No items or more than 1,000; an item not a JudgeInput (or in no known language).",
        },
        403: {"model": ProblemDetail, "description": "model_calls_not_allowed: a client key asked for model calls."},
    },
    summary="Judge many debate outcomes, one per item",
)
async def verdict_bulk(
    body: JudgeBulkRequest, request: Request, services: JudgeServicesDep, budgets: RequestBudgets
) -> BulkAnswer:
    """Each item's verdict as ``runVerdict`` returns it, or the problem it answers with, in the order asked;
    ``token_budget`` is each item's."""
    budget = budgets.grant(body.token_budget)

    async def one(item: JudgeInput) -> dict[str, Any]:
        return (await _verdict_metered(item, services, budget)).model_dump(mode="json", by_alias=True)

    def check(item: JudgeInput) -> DomainJudgeInput:
        services.language(item.language)
        return DomainJudgeInput.from_wire(item)

    return await answer_each(body.items, one, _symbol_of, path=request.url.path, check=check)


def _symbol_of(item: JudgeInput) -> str:
    return item.symbol
