"""Errors raised by more than one service, and the root of every service's errors.

Each error has a stable ``code``, and each code is declared by one class in the workspace (an error a single
service raises lives in that service's ``domain/exceptions.py``); the HTTP status of every code is
``problems.PROBLEM_STATUS`` (mapped once, at the edge). ``problem_extra`` adds members to the problem detail
(e.g. what the model wrote).

ServiceError
├── InvalidRequestError      invalid_request
│   ├── SymbolRequiredError  symbol_required (missing or blank)
│   ├── InvalidSymbolError   invalid_symbol (not a symbol such as 600519.SH, 0700.HK, AAPL)
│   ├── InvalidOptionsError  invalid_options (an expert's options unknown or malformed)
│   ├── InvalidDateError     invalid_date (not a YYYY-MM-DD day)
│   ├── InvalidDateRangeError  invalid_date_range (start after end)
│   ├── InvalidLanguageError   invalid_language (a research language other than zh or en)
│   ├── ConflictingAnalysisDateError  conflicting_analysis_date (analysis_date and the option differ)
│   └── AnalysisDateInFutureError     analysis_date_in_future (after today)
├── SymbolNotFoundError      symbol_not_found (no data for the symbol; research, and the coordinator when
│                            every expert or the chart's bars failed for it)
├── DataUnavailableError     data_unavailable (no data of the kind asked for)
├── InsufficientHistoryError insufficient_history (too little data public on the analysis date)
├── LLMOutputParseError      llm_output_invalid (the model's answer is not the promised JSON, was cut off at
│                            its length limit, or holds figures not in its input under LLM_NUMBERS_POLICY=reject)
├── TokenBudgetExhaustedError  token_budget_exhausted (the research's token budget is spent: no model call)
└── ModelCallsNotAllowedError  model_calls_not_allowed (a client key asked a peer for model calls, which only the
                               coordinator's service key may ask for unless ALLOW_CLIENT_MODEL_CALLS is on)
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from shared_contracts.problems import raw_output_member
from shared_contracts.redaction import redact_secrets


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


class InvalidLanguageError(InvalidRequestError):
    code = "invalid_language"


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


class SymbolNotFoundError(ServiceError):
    """No data for the symbol; ``available_symbols``: the symbols the data source has, when it can list them."""

    code = "symbol_not_found"

    def __init__(self, message: str, available_symbols: list[str] | None = None) -> None:
        super().__init__(message)
        self.available_symbols = available_symbols
        self.problem_extra = {"available_symbols": available_symbols} if available_symbols else None


class DataUnavailableError(ServiceError):
    """The data source has no data of the kind asked for (e.g. no valuation for 000001.SZ offline)."""

    code = "data_unavailable"


class InsufficientHistoryError(ServiceError):
    """Too little data was public on the analysis date; ``earliest_usable_date``: the earliest day that would do,
    when the data has one."""

    code = "insufficient_history"

    def __init__(self, message: str, earliest_usable_date: date | None = None) -> None:
        super().__init__(message)
        self.earliest_usable_date = earliest_usable_date
        self.problem_extra = (
            {"earliest_usable_date": earliest_usable_date.isoformat()} if earliest_usable_date else None
        )


class LLMOutputParseError(ServiceError):
    """The model's answer cannot be used as its JSON contract (raised by the LLM kit's parser, client and
    numbers gate, and by the services' own checks of an answer). ``raw_output`` keeps what the model wrote;
    ``agent`` names the debate agent that answered, where there are several. The message passes through
    ``redact_secrets``, as every LLM failure's does."""

    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str = "", *, agent: str | None = None) -> None:
        super().__init__(redact_secrets(message))
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


class ModelCallsNotAllowedError(ServiceError):
    """A client key (not the coordinator's ``service`` key) asked a peer service for work that calls its model:
    those tokens would be counted in no client's daily quota (``ALLOW_CLIENT_MODEL_CALLS`` allows it)."""

    code = "model_calls_not_allowed"

    def __init__(self, service: str) -> None:
        super().__init__(
            f"The {service} service runs its model only for the coordinator (a service key): call "
            "POST /api/v1/coordinator/research, where the tokens count in your daily quota."
        )
