"""ResearchOrchestrationService validates before it calls the orchestration port."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from coordinator_fakes import FakeOrchestrator, InMemorySessionRepository, research_service

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.domain.exceptions import DuplicateExpertError, ExpertsEmptyError, UnknownExpertError
from coordinator.domain.model.enums import ExpertType
from shared_contracts.errors import (
    ConflictingAnalysisDateError,
    InvalidOptionsError,
    InvalidRequestError,
    SymbolRequiredError,
)
from shared_contracts.problems import PROBLEM_STATUS

TODAY = date(2026, 3, 2)


def service(orchestrator: FakeOrchestrator) -> ResearchOrchestrationService:
    return research_service(orchestrator, InMemorySessionRepository(), today=lambda: TODAY)


@pytest.mark.parametrize("symbol", [None, "", "   "])
async def test_missing_symbol_is_rejected_before_the_port(symbol: str | None) -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(SymbolRequiredError) as caught:
        await service(orchestrator).execute(ResearchCommand(symbol=symbol, experts=["technical_analyst"]))
    assert caught.value.code == "symbol_required"
    assert orchestrator.requests == []


@pytest.mark.parametrize("experts", [[], None])
async def test_empty_experts_are_rejected_before_the_port(experts: list[str] | None) -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(ExpertsEmptyError) as caught:
        await service(orchestrator).execute(ResearchCommand(symbol="600519.SH", experts=experts))
    assert caught.value.code == "experts_empty"
    assert orchestrator.requests == []


async def test_unknown_expert_is_rejected_before_the_port() -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(UnknownExpertError) as caught:
        await service(orchestrator).execute(
            ResearchCommand(symbol="600519.SH", experts=["technical_analyst", "unknown_expert"])
        )
    assert caught.value.code == "unknown_expert"
    assert "'unknown_expert'" in str(caught.value)
    assert orchestrator.requests == []


async def test_duplicate_expert_is_rejected() -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(DuplicateExpertError) as caught:
        await service(orchestrator).execute(
            ResearchCommand(symbol="600519.SH", experts=["macro_intelligence", "macro_intelligence"])
        )
    assert caught.value.code == "duplicate_expert"
    assert orchestrator.requests == []


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"financial_auditor": {"limit": 5}}, "not requested"),
        ({"technical_analyst": {"window": 20}}, "window"),
        ({"technical_analyst": {"analysis_date": "2026-13-45"}}, "analysis_date"),
        ({"technical_analyst": {"analysis_date": "yesterday"}}, "analysis_date"),
        ({"macro_intelligence": {"anything": 1}}, "anything"),
    ],
)
async def test_invalid_options_are_rejected(options: dict[str, dict[str, Any]], fragment: str) -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(InvalidOptionsError) as caught:
        await service(orchestrator).execute(
            ResearchCommand(symbol="600519.SH", experts=["technical_analyst", "macro_intelligence"], options=options)
        )
    assert caught.value.code == "invalid_options"
    assert fragment in str(caught.value)
    assert orchestrator.requests == []


@pytest.mark.parametrize("limit", ["5", 5.5, True, 0, 21, -1])
async def test_non_integer_or_out_of_range_limit_is_rejected(limit: Any) -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(InvalidOptionsError, match=r"options\.financial_auditor\.limit"):
        await service(orchestrator).execute(
            ResearchCommand(
                symbol="600519.SH", experts=["financial_auditor"], options={"financial_auditor": {"limit": limit}}
            )
        )
    assert orchestrator.requests == []


def test_every_validation_error_is_a_400_with_a_distinct_code() -> None:
    classes = [
        SymbolRequiredError,
        ExpertsEmptyError,
        UnknownExpertError,
        DuplicateExpertError,
        InvalidOptionsError,
        ConflictingAnalysisDateError,
    ]
    assert all(issubclass(c, InvalidRequestError) and PROBLEM_STATUS[c.code] == 400 for c in classes)
    assert len({c.code for c in classes}) == len(classes)


async def test_defaults_are_resolved_at_request_time() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(symbol=" 600519.SH ", experts=["technical_analyst", "financial_auditor", "valuation_modeler"])
    )
    [request] = orchestrator.requests
    assert request.symbol == "600519.SH"
    assert request.options == {
        "technical_analyst": {"analysis_date": "2026-03-02"},
        "financial_auditor": {"limit": 5},
        "valuation_modeler": {},
    }


async def test_without_any_date_the_research_is_dated_today_when_it_arrives() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(ResearchCommand(symbol="600519.SH", experts=["macro_intelligence"]))
    [request] = orchestrator.requests
    assert request.analysis_date == TODAY
    assert request.options == {"macro_intelligence": {}}  # the date is the research's, not an option


async def test_the_top_level_date_dates_the_research_and_the_technical_option() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(
            symbol="600519.SH", experts=["technical_analyst", "valuation_modeler"], analysis_date="2025-09-30"
        )
    )
    [request] = orchestrator.requests
    assert request.analysis_date == date(2025, 9, 30)
    assert request.options == {"technical_analyst": {"analysis_date": "2025-09-30"}, "valuation_modeler": {}}


async def test_the_technical_option_dates_the_research_without_a_top_level_date() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(
            symbol="600519.SH",
            experts=["technical_analyst", "macro_intelligence"],
            options={"technical_analyst": {"analysis_date": "2024-06-28"}},
        )
    )
    assert orchestrator.requests[0].analysis_date == date(2024, 6, 28)


async def test_the_same_date_in_both_places_is_one_date() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(
            symbol="600519.SH",
            experts=["technical_analyst"],
            options={"technical_analyst": {"analysis_date": "2024-06-28"}},
            analysis_date="2024-06-28",
        )
    )
    [request] = orchestrator.requests
    assert request.analysis_date == date(2024, 6, 28)
    assert request.options == {"technical_analyst": {"analysis_date": "2024-06-28"}}


async def test_two_different_dates_are_a_conflict_before_anything_runs() -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(ConflictingAnalysisDateError) as caught:
        await service(orchestrator).execute(
            ResearchCommand(
                symbol="600519.SH",
                experts=["technical_analyst"],
                options={"technical_analyst": {"analysis_date": "2024-06-28"}},
                analysis_date="2025-09-30",
            )
        )
    assert caught.value.code == "conflicting_analysis_date"
    assert "2025-09-30" in str(caught.value)
    assert "2024-06-28" in str(caught.value)
    assert orchestrator.requests == []


@pytest.mark.parametrize("where", ["top_level", "option"])
async def test_a_date_after_today_is_refused_before_anything_runs(where: str) -> None:
    orchestrator = FakeOrchestrator()
    future = (TODAY + timedelta(days=1)).isoformat()
    dated: dict[str, Any] = (
        {"analysis_date": future}
        if where == "top_level"
        else {"options": {"technical_analyst": {"analysis_date": future}}}
    )
    with pytest.raises(InvalidRequestError) as caught:
        await service(orchestrator).execute(ResearchCommand(symbol="600519.SH", experts=["technical_analyst"], **dated))
    assert caught.value.code == "analysis_date_in_future"
    assert orchestrator.requests == []


@pytest.mark.parametrize("given", ["2025-02-30", "30/09/2025", "20250930", "", "2025-9-30", "２０２５-09-30"])
async def test_a_top_level_date_that_is_no_iso_day_is_an_invalid_request(given: str) -> None:
    orchestrator = FakeOrchestrator()
    with pytest.raises(InvalidRequestError) as caught:
        await service(orchestrator).execute(
            ResearchCommand(symbol="600519.SH", experts=["macro_intelligence"], analysis_date=given)
        )
    assert caught.value.code == "invalid_request"
    assert "analysis_date" in str(caught.value)
    assert orchestrator.requests == []


async def test_given_options_are_kept_and_experts_mapped_to_expert_type() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(
            symbol="000001.SZ",
            experts=["technical_analyst", "macro_intelligence"],
            options={"technical_analyst": {"analysis_date": "2026-02-13"}},
        )
    )
    [request] = orchestrator.requests
    assert request.experts == [ExpertType.TECHNICAL_ANALYST, ExpertType.MACRO_INTELLIGENCE]
    assert request.options == {"technical_analyst": {"analysis_date": "2026-02-13"}, "macro_intelligence": {}}
    assert request.skip_debate is False


async def test_financial_limit_given_is_kept() -> None:
    orchestrator = FakeOrchestrator()
    await service(orchestrator).execute(
        ResearchCommand(symbol="600519.SH", experts=["financial_auditor"], options={"financial_auditor": {"limit": 8}})
    )
    assert orchestrator.requests[0].options == {"financial_auditor": {"limit": 8}}


class ComparedName(str):
    """An expert name that counts how often it is compared with another."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        ComparedName.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


async def test_the_expert_checks_compare_each_name_a_bounded_number_of_times() -> None:
    # Each name checked against the others (the old duplicate check) is n² comparisons: ~89 s for 100 000.
    names: list[str] = [ComparedName("technical_analyst") for _ in range(2_000)]
    ComparedName.comparisons = 0
    with pytest.raises(DuplicateExpertError):
        await service(FakeOrchestrator()).execute(ResearchCommand(symbol="600519.SH", experts=names))
    assert ComparedName.comparisons <= 10 * len(names)
