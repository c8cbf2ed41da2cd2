"""Failures of an LLM call, each with a stable ``code`` (its HTTP status: ``problems.PROBLEM_STATUS``):

LLMError
├── LLMUnavailableError  (llm_unavailable: connection refused/reset, 5xx, 429)             → 503
├── LLMTimeoutError      (llm_timeout: no answer within LLM_TIMEOUT_SECONDS, or a 408)     → 504
└── LLMUpstreamError     (llm_upstream_error: the endpoint or the model refused the call)  → 502

An answer that came but cannot be used (no valid JSON object, output cut off, figures refused) is not an
``LLMError``: it is ``shared_contracts.errors.LLMOutputParseError`` (500 ``llm_output_invalid``), the one class of
that code, raised by the kit's parser, client and numbers gate and by the services alike.

A message is our own summary (the status the endpoint answered, the class of the exception, what was wrong
with the output), never the endpoint's response text or an SDK exception's message, either of which can
echo the request's key; it reaches clients in problem details and peers' stored sessions, so it is also
passed through ``redact_secrets``.
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
