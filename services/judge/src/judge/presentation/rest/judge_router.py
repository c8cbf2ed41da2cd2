"""POST /api/v1/judge/verdict: a verdict from a debate outcome (body: ``JudgeInput``)."""

from __future__ import annotations

from fastapi import APIRouter

from judge.domain.dtos.judge_input import JudgeInput as DomainJudgeInput
from judge.presentation.rest.dependencies import JudgeServiceDep
from service_kit.token_budget import TokenBudgetHeader, metered_request
from shared_contracts.judge import JudgeInput, Verdict
from shared_contracts.problems import ProblemDetail

router = APIRouter(prefix="/api/v1/judge", tags=["judge"])

_ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": ProblemDetail, "description": description}
    for status, description in {
        400: "Invalid input: missing symbol, unknown direction, confidence outside [0, 1], unknown field.",
        422: "token_budget_exhausted: X-Token-Budget allows no further model call.",
        500: "The engine's answer is unusable (llm_output_invalid).",
        502: "The LLM endpoint refused the call.",
        503: "The LLM endpoint is unavailable.",
        504: "The LLM endpoint did not answer in time.",
    }.items()
}


@router.post(
    "/verdict", operation_id="runVerdict", response_model=Verdict, responses=_ERRORS, summary="Judge a debate outcome"
)
async def verdict(body: JudgeInput, service: JudgeServiceDep, token_budget: TokenBudgetHeader = None) -> Verdict:
    """The verdict with the ``usage`` of the model calls it took."""
    with metered_request(token_budget) as meter:
        result = await service.run(DomainJudgeInput.from_wire(body))
    return result.model_copy(update={"usage": meter.usage})
