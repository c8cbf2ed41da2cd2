"""The {exception: HTTP status} table handed to the app (errors are mapped to HTTP here, once).

- invalid input (every ``InvalidDebateInputError``; codes in ``domain/exceptions.py``)  → 400
- ``LLMOutputParseError`` (an agent's answer is not its JSON contract)               → 500 llm_output_invalid
- the LLM endpoint unreachable or answering 5xx                                         → 503 llm_unavailable
- the LLM endpoint not answering within LLM_TIMEOUT_SECONDS                             → 504 llm_timeout
- the LLM endpoint refusing the call (4xx: bad key, unknown model, ...)                 → 502 llm_upstream_error
- anything else                                                                         → 500 internal_error
"""

from __future__ import annotations

from debate.domain.exceptions import InvalidDebateInputError, LLMOutputParseError
from shared_contracts.llm.errors import LLMJSONError, LLMTimeoutError, LLMUnavailableError, LLMUpstreamError

STATUS_BY_EXCEPTION: dict[type[Exception], int] = {
    InvalidDebateInputError: 400,
    LLMOutputParseError: 500,
    LLMJSONError: 500,
    LLMUnavailableError: 503,
    LLMTimeoutError: 504,
    LLMUpstreamError: 502,
}
