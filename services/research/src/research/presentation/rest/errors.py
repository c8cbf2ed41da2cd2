"""Every error → HTTP status, in one table handed to the app (codes travel on the exceptions).
Starlette looks handlers up along the exception's MRO, so a subclass inherits its parent's status
unless listed itself (DataProviderTimeoutError → 504 before DataProviderError → 502)."""

from __future__ import annotations

from research.domain.exceptions import (
    DataProviderError,
    DataProviderTimeoutError,
    InsufficientHistoryError,
    InvalidRequestError,
    LLMOutputParseError,
    NotFoundError,
)
from shared_contracts.llm.errors import LLMJSONError, LLMTimeoutError, LLMUnavailableError, LLMUpstreamError

STATUS_BY_EXCEPTION: dict[type[Exception], int] = {
    InvalidRequestError: 400,
    NotFoundError: 404,
    InsufficientHistoryError: 422,
    DataProviderError: 502,
    DataProviderTimeoutError: 504,
    LLMOutputParseError: 502,
    LLMJSONError: 502,
    LLMUpstreamError: 502,
    LLMUnavailableError: 503,
    LLMTimeoutError: 504,
}
