"""A research whose every expert the token budget stopped is the caller's 422, not the spec's 500 (issue 41)."""

from __future__ import annotations

from coordinator.domain.dtos.research_dtos import ExpertFailure, ExpertResultItem, ResearchResult
from coordinator.domain.exceptions import AllExpertsFailedError
from coordinator.domain.model.enums import ExpertType
from shared_contracts.errors import TokenBudgetExhaustedError
from shared_contracts.problems import PROBLEM_STATUS
from shared_contracts.usage import LLMUsage

SPENT = "token_budget_exhausted: the research's token budget (1 tokens) is spent (0 used): {} not run"


def _result(errors: dict[ExpertType, str]) -> ResearchResult:
    items = [ExpertResultItem(expert_type=e, status="failed", error=error) for e, error in errors.items()]
    return ResearchResult(symbol="600519.SH", overall_status="failed", expert_results=items)


def test_every_expert_stopped_by_the_budget_is_a_422() -> None:
    result = _result({e: SPENT.format(e.value) for e in (ExpertType.TECHNICAL_ANALYST, ExpertType.MACRO_INTELLIGENCE)})
    error = AllExpertsFailedError.for_result(result)
    assert error.reason is TokenBudgetExhaustedError
    assert PROBLEM_STATUS[error.answer_code] == 422


def test_a_budget_stop_beside_a_fault_is_still_the_500() -> None:
    result = _result({ExpertType.TECHNICAL_ANALYST: SPENT.format("x"), ExpertType.MACRO_INTELLIGENCE: "peer_timeout"})
    assert AllExpertsFailedError.for_result(result).reason is None


def test_a_spent_budget_is_not_a_refusal_for_good() -> None:
    """A retry has a budget of its own: an expert the budget stopped is asked again."""
    spent = ExpertFailure(status=422, code="token_budget_exhausted", usage=LLMUsage(llm_calls=1, input_tokens=9))
    assert not spent.permanent
    assert ExpertFailure(status=422, code="insufficient_history").permanent
