"""The research service's errors, each with a stable ``code`` (the presentation layer maps them to HTTP):

ResearchError
├── InvalidRequestError            400
│   ├── SymbolRequiredError        symbol_required (missing or blank, as the coordinator and debate say)
│   ├── InvalidSymbolError         invalid_symbol
│   ├── InvalidOptionsError        invalid_options
│   ├── InvalidDateError / InvalidDateRangeError  invalid_date, invalid_date_range (bars' start/end)
│   ├── ConflictingAnalysisDateError conflicting_analysis_date (analysis_date and the option differ)
│   └── AnalysisDateInFutureError  analysis_date_in_future (after today)
├── NotFoundError                  404
│   ├── UnknownExpertError         unknown_expert
│   ├── SymbolNotFoundError        symbol_not_found (carries the symbols available offline)
│   └── DataUnavailableError       data_unavailable (the provider has no data of that category)
├── InsufficientHistoryError       422 insufficient_history (too little data public on the analysis date;
│                                  carries ``earliest_usable_date`` when the data has a later one)
├── DataProviderError              502 data_provider_error (a live source failed)
│   └── DataProviderTimeoutError   504 data_provider_timeout
└── LLMOutputParseError            502 llm_output_invalid (the model's answer is not the promised JSON)
"""

from __future__ import annotations

from datetime import date

from shared_contracts.problems import raw_output_member


class ResearchError(Exception):
    code = "research_error"


class InvalidRequestError(ResearchError):
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


class NotFoundError(ResearchError):
    code = "not_found"


class UnknownExpertError(NotFoundError):
    code = "unknown_expert"


class SymbolNotFoundError(NotFoundError):
    code = "symbol_not_found"

    def __init__(self, message: str, available_symbols: list[str] | None = None) -> None:
        super().__init__(message)
        self.available_symbols = available_symbols
        self.problem_extra = {"available_symbols": available_symbols} if available_symbols else None


class DataUnavailableError(NotFoundError):
    code = "data_unavailable"


class InsufficientHistoryError(ResearchError):
    code = "insufficient_history"

    def __init__(self, message: str, earliest_usable_date: date | None = None) -> None:
        super().__init__(message)
        self.earliest_usable_date = earliest_usable_date
        self.problem_extra = (
            {"earliest_usable_date": earliest_usable_date.isoformat()} if earliest_usable_date else None
        )


class DataProviderError(ResearchError):
    code = "data_provider_error"


class DataProviderTimeoutError(DataProviderError):
    code = "data_provider_timeout"


class LLMOutputParseError(ResearchError):
    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str = "") -> None:
        super().__init__(message)
        self.raw_output = raw_output
        self.problem_extra = raw_output_member(raw_output) or None
