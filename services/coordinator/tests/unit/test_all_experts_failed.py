"""Which error a research in which every expert failed is: the caller's mistake (404 symbol_not_found or
data_unavailable, 422 insufficient_history) only when every expert failed for a client-side reason, as the
research service said."""

from __future__ import annotations

from datetime import date

from coordinator.domain.dtos.research_dtos import ExpertFailure, ExpertResultItem, ResearchResult
from coordinator.domain.exceptions import AllExpertsFailedError
from coordinator.domain.model.enums import ExpertType
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError, SymbolNotFoundError

TA, VM, MI = ExpertType.TECHNICAL_ANALYST, ExpertType.VALUATION_MODELER, ExpertType.MACRO_INTELLIGENCE


def not_found() -> ExpertFailure:
    return ExpertFailure(status=404, code="symbol_not_found")


def too_early(earliest: date | None) -> ExpertFailure:
    return ExpertFailure(status=422, code="insufficient_history", earliest_usable_date=earliest)


def failed(**failures: ExpertFailure | None) -> ResearchResult:
    items = [
        ExpertResultItem(expert_type=ExpertType(e), status="failed", error=f"{e} failed", failure=f)
        for e, f in failures.items()
    ]
    return ResearchResult(symbol="ZZZZ", overall_status="failed", expert_results=items)


def test_every_expert_without_data_for_the_symbol_is_symbol_not_found() -> None:
    result = failed(technical_analyst=not_found(), macro_intelligence=not_found())
    error = AllExpertsFailedError.for_result(result)
    assert error.reason is SymbolNotFoundError
    assert (error.code, error.answer_code) == ("all_experts_failed", "symbol_not_found")
    assert error.result is result


def test_every_expert_short_of_history_is_insufficient_history_from_the_earliest_usable_date() -> None:
    result = failed(
        technical_analyst=too_early(date(2001, 12, 20)),
        valuation_modeler=too_early(None),
        macro_intelligence=too_early(date(2001, 3, 30)),
    )
    error = AllExpertsFailedError.for_result(result)
    assert error.reason is InsufficientHistoryError
    assert (error.answer_code, error.earliest_usable_date) == ("insufficient_history", date(2001, 3, 30))


def test_insufficient_history_without_any_date_has_none() -> None:
    error = AllExpertsFailedError.for_result(failed(technical_analyst=too_early(None)))
    assert error.reason is InsufficientHistoryError
    assert error.earliest_usable_date is None


def no_data() -> ExpertFailure:
    return ExpertFailure(status=404, code="data_unavailable")


def test_mixed_client_reasons_with_a_date_too_early_are_insufficient_history() -> None:
    """000021.SZ (bars only) on 2019-12-31: the bar experts are too early, the others have no data at all."""
    result = failed(
        technical_analyst=too_early(date(2020, 3, 30)), valuation_modeler=no_data(), macro_intelligence=not_found()
    )
    error = AllExpertsFailedError.for_result(result)
    assert error.reason is InsufficientHistoryError
    assert error.earliest_usable_date == date(2020, 3, 30)


def test_no_data_of_the_kinds_asked_for_is_data_unavailable() -> None:
    error = AllExpertsFailedError.for_result(failed(valuation_modeler=no_data(), macro_intelligence=not_found()))
    assert error.reason is DataUnavailableError
    assert error.answer_code == "data_unavailable"


def test_any_failure_research_did_not_explain_as_the_callers_is_all_experts_failed() -> None:
    server_side = ExpertFailure(status=503, code="data_provider_error")
    for other in (None, server_side):  # a timeout or an unreachable service; a 5xx problem
        error = AllExpertsFailedError.for_result(failed(technical_analyst=not_found(), valuation_modeler=other))
        assert error.reason is None
        assert error.answer_code == "all_experts_failed"


def test_experts_that_failed_alike_are_named_together_and_the_error_said_once() -> None:
    error = "research 404 symbol_not_found: ZZZZ is not in the offline snapshot"
    items = [ExpertResultItem(expert_type=e, status="failed", error=error, failure=not_found()) for e in (TA, VM, MI)]
    items.append(ExpertResultItem(expert_type=ExpertType.CATALYST_DETECTIVE, status="failed", error="timed out"))
    refused = AllExpertsFailedError.for_result(
        ResearchResult(symbol="ZZZZ", overall_status="failed", expert_results=items)
    )
    assert str(refused) == (
        f"every selected expert failed (technical_analyst, valuation_modeler, macro_intelligence: {error}; "
        "catalyst_detective: timed out)"
    )
