"""Failures of an LLM call, each with a stable ``code``. Presentation maps them to HTTP:

LLMError
├── LLMUnavailableError  (llm_unavailable: connection refused/reset, 5xx, 429)             → 503
├── LLMTimeoutError      (llm_timeout: no answer within LLM_TIMEOUT_SECONDS, or a 408)     → 504
├── LLMUpstreamError     (llm_upstream_error: the endpoint or the model refused the call)  → 502
└── LLMJSONError         (llm_output_invalid: no valid JSON object, or output cut off)
"""

from __future__ import annotations


class LLMError(Exception):
    code = "llm_error"


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
