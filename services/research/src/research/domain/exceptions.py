"""The research service's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``):

ResearchError
├── InvalidRequestError            400 (shared_contracts.errors, with SymbolRequiredError, InvalidSymbolError)
│   ├── InvalidOptionsError        invalid_options
│   ├── InvalidDateError / InvalidDateRangeError  invalid_date, invalid_date_range (bars' start/end)
│   ├── ConflictingAnalysisDateError conflicting_analysis_date (analysis_date and the option differ)
│   └── AnalysisDateInFutureError  analysis_date_in_future (after today)
├── NotFoundError                  404
│   ├── UnknownExpertError         expert_not_found
│   ├── SymbolNotFoundError        symbol_not_found (carries the symbols available offline)
│   └── DataUnavailableError       data_unavailable (the provider has no data of that category)
├── InsufficientHistoryError       422 insufficient_history (too little data public on the analysis date;
│                                  carries ``earliest_usable_date`` when the data has a later one)
├── DataProviderError              502 data_provider_error (a live source failed)
│   └── DataProviderTimeoutError   504 data_provider_timeout
LLMOutputParseError                500 llm_output_invalid (shared_contracts.errors)
"""

from __future__ import annotations

from datetime import date

from shared_contracts.errors import (
    ServiceError,
)


class ResearchError(ServiceError):
    code = "internal_error"


class NotFoundError(ResearchError):
    code = "not_found"


class UnknownExpertError(NotFoundError):
    code = "expert_not_found"


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
