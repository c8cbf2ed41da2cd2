"""The research service's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``).

Only research raises these; the errors it shares with other services are ``shared_contracts.errors``'s:

ServiceError (shared_contracts.errors)
├── ExpertNotFoundError            404 expert_not_found (an unknown expert in the path)
├── DataProviderError              502 data_provider_error (a live source failed)
│   └── DataProviderTimeoutError   504 data_provider_timeout
│ shared:
├── InvalidRequestError            400 invalid_request, with SymbolRequiredError, InvalidSymbolError,
│                                  InvalidOptionsError, InvalidDateError / InvalidDateRangeError (bars' start/end),
│                                  ConflictingAnalysisDateError, AnalysisDateInFutureError
├── SymbolNotFoundError            404 symbol_not_found (carries the symbols available offline)
├── DataUnavailableError           404 data_unavailable (the provider has no data of that category)
├── InsufficientHistoryError       422 insufficient_history (too little data public on the analysis date;
│                                  carries ``earliest_usable_date`` when the data has a later one)
├── LLMOutputParseError            500 llm_output_invalid
└── TokenBudgetExhaustedError      422 token_budget_exhausted
"""

from __future__ import annotations

from shared_contracts.errors import ServiceError


class ExpertNotFoundError(ServiceError):
    """The path names no expert (``/api/v1/research/experts/{expert_type}``): a 404, unlike the coordinator's
    ``UnknownExpertError``, an expert in the request body it refuses with a 400."""

    code = "expert_not_found"


class DataProviderError(ServiceError):
    code = "data_provider_error"


class DataProviderTimeoutError(DataProviderError):
    code = "data_provider_timeout"
