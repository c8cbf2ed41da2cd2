"""Failures of an LLM call, each with a stable ``code`` (its HTTP status: ``problems.PROBLEM_STATUS``):

LLMError
├── LLMUnavailableError  (llm_unavailable: connection refused/reset, 5xx, 429)             → 503
├── LLMTimeoutError      (llm_timeout: no answer within LLM_TIMEOUT_SECONDS, or a 408)     → 504
├── LLMUpstreamError     (llm_upstream_error: the endpoint or the model refused the call)  → 502
└── LLMJSONError         (llm_output_invalid: no valid JSON object, or output cut off)      → 500

A message is our own summary (the status the endpoint answered, the class of the exception, what was wrong
with the output), never the endpoint's response text or an SDK exception's message, either of which can
echo the request's key; it reaches clients in problem details and peers' stored sessions, so it is also
passed through ``redact_secrets``. ``LLMJSONError.raw_output`` keeps what the model wrote, unredacted.
"""

from __future__ import annotations

from shared_contracts.errors import ServiceError
from shared_contracts.redaction import redact_secrets


class LLMError(ServiceError):
    code = "llm_error"

    def __init__(self, message: str) -> None:
        super().__init__(redact_secrets(message))


class LLMUnavailableError(LLMError):
    code = "llm_unavailable"


class LLMTimeoutError(LLMError):
    code = "llm_timeout"


class LLMUpstreamError(LLMError):
    code = "llm_upstream_error"


class LLMJSONError(LLMError):
    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str) -> None:
        super().__init__(message)
        self.raw_output = raw_output
