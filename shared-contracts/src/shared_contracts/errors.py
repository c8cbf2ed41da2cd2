"""Errors raised by more than one service, and the root of every service's errors.

Each error has a stable ``code``; the HTTP status of every code is ``problems.PROBLEM_STATUS`` (mapped
once, at the edge). ``problem_extra`` adds members to the problem detail (e.g. what the model wrote).

ServiceError
├── InvalidRequestError      invalid_request
│   ├── SymbolRequiredError  symbol_required (missing or blank)
│   ├── InvalidSymbolError   invalid_symbol (not a symbol such as 600519.SH, 0700.HK, AAPL)
│   ├── InvalidOptionsError  invalid_options (an expert's options unknown or malformed)
│   ├── InvalidDateError     invalid_date (not a YYYY-MM-DD day)
│   ├── InvalidDateRangeError  invalid_date_range (start after end)
│   ├── ConflictingAnalysisDateError  conflicting_analysis_date (analysis_date and the option differ)
│   └── AnalysisDateInFutureError     analysis_date_in_future (after today)
├── LLMOutputParseError      llm_output_invalid (the model's answer is not the promised JSON)
└── TokenBudgetExhaustedError  token_budget_exhausted (the research's token budget is spent: no model call)
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from shared_contracts.problems import raw_output_member


class ServiceError(Exception):
    code: str = "internal_error"
    problem_extra: Mapping[str, Any] | None = None


class InvalidRequestError(ServiceError):
    code = "invalid_request"


class SymbolRequiredError(InvalidRequestError):
    code = "symbol_required"


class InvalidSymbolError(InvalidRequestError):
    code = "invalid_symbol"


class InvalidOptionsError(InvalidRequestError):
    code = "invalid_options"


class InvalidDateError(InvalidRequestError):
    code = "invalid_date"


class InvalidDateRangeError(InvalidRequestError):
    code = "invalid_date_range"


class ConflictingAnalysisDateError(InvalidRequestError):
    code = "conflicting_analysis_date"


class AnalysisDateInFutureError(InvalidRequestError):
    code = "analysis_date_in_future"


def resolve_analysis_date(given: date | None, option: date | None, today: date, *, option_name: str) -> date:
    """The research's one date: ``given`` (the top-level ``analysis_date``), else the technical analyst's
    ``option`` (named ``option_name`` in the error), else ``today``; never after today.

    >>> resolve_analysis_date(None, date(2025, 6, 30), date(2026, 1, 2), option_name="options.analysis_date")
    datetime.date(2025, 6, 30)
    """
    if given is not None and option is not None and given != option:
        raise ConflictingAnalysisDateError(
            f"analysis_date {given.isoformat()} and {option_name} {option.isoformat()} differ; "
            "give one date, or the same in both"
        )
    resolved = given or option or today
    if resolved > today:
        raise AnalysisDateInFutureError(
            f"analysis_date {resolved.isoformat()} is after today ({today.isoformat()}): a research is made as of "
            "a day that has happened"
        )
    return resolved


class LLMOutputParseError(ServiceError):
    """``agent`` names the debate agent that answered, where there are several."""

    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str = "", *, agent: str | None = None) -> None:
        super().__init__(message)
        self.raw_output = raw_output
        self.agent = agent
        extra = {"agent": agent} if agent else {}
        self.problem_extra = {**extra, **raw_output_member(raw_output)} or None


class TokenBudgetExhaustedError(ServiceError):
    """The research's token budget is spent: the model call was not made. Never a reason to fall back to the
    rules engine (it is not an ``LLMError``): the stage fails and the research is partial."""

    code = "token_budget_exhausted"

    def __init__(self, budget: int, used: int) -> None:
        super().__init__(f"the research's token budget ({budget} tokens) is spent ({used} used): no model call made")
        self.budget = budget
        self.used = used
