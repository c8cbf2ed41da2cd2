"""{exception: HTTP status} — the one place the judge's errors become HTTP (problem details with ``code``).

| exception                         | status | code                       |
|-----------------------------------|--------|----------------------------|
| request validation (pydantic)     | 400    | invalid_request            |
| InvalidJudgeInputError (+ subs)   | 400    | symbol_required, ...       |
| LLMOutputParseError               | 500    | llm_output_invalid         |
| VerdictRejectedError (+ subs)     | 500    | verdict_contradicts_debate |
| LLMUpstreamError                  | 502    | llm_upstream_error         |
| LLMUnavailableError               | 503    | llm_unavailable            |
| LLMTimeoutError                   | 504    | llm_timeout                |
| LLMJSONError (not expected here)  | 500    | llm_output_invalid         |
"""

from __future__ import annotations

from judge.domain.exceptions import InvalidJudgeInputError, LLMOutputParseError, VerdictRejectedError
from shared_contracts.llm.errors import LLMJSONError, LLMTimeoutError, LLMUnavailableError, LLMUpstreamError

STATUS_BY_EXCEPTION: dict[type[Exception], int] = {
    InvalidJudgeInputError: 400,
    LLMOutputParseError: 500,
    VerdictRejectedError: 500,
    LLMJSONError: 500,
    LLMUpstreamError: 502,
    LLMUnavailableError: 503,
    LLMTimeoutError: 504,
}
