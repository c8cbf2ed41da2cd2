"""RFC 9457 problem details with a stable machine ``code``, the error body of every service."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from shared_contracts.redaction import redact_secrets

PROBLEM_CONTENT_TYPE = "application/problem+json"
RAW_OUTPUT_EXCERPT = "raw_output_excerpt"
RAW_OUTPUT_EXCERPT_CHARS = 1000


def raw_output_member(raw_output: str) -> dict[str, str]:
    """The problem member every service adds to an ``llm_output_invalid``: what the model wrote (its
    beginning, secrets masked), so the failure can be audited; nothing when it wrote nothing."""
    return {RAW_OUTPUT_EXCERPT: redact_secrets(raw_output[:RAW_OUTPUT_EXCERPT_CHARS])} if raw_output else {}


# The HTTP status of every problem code, in every service: a code means one status everywhere.
PROBLEM_STATUS: dict[str, int] = {
    # 400: the caller's mistake in the request
    "invalid_request": 400,
    "malformed_json": 400,
    "symbol_required": 400,
    "invalid_symbol": 400,
    "invalid_options": 400,
    "invalid_date": 400,
    "invalid_date_range": 400,
    "invalid_engine": 400,
    "invalid_language": 400,
    "conflicting_analysis_date": 400,
    "analysis_date_in_future": 400,
    "experts_empty": 400,
    "unknown_expert": 400,
    "duplicate_expert": 400,
    "expert_results_empty": 400,
    "too_many_experts": 400,
    "no_successful_experts": 400,
    "invalid_expert_result": 400,
    "unknown_signal": 400,
    "symbol_mismatch": 400,
    "invalid_judge_input": 400,
    # 403: the key may not ask for this (the authentication middleware's insufficient_scope is its own)
    "model_calls_not_allowed": 403,
    # 404 / 409 / 422: what was asked for is not there, not in that state, or not enough
    "not_found": 404,
    "expert_not_found": 404,
    "symbol_not_found": 404,
    "data_unavailable": 404,
    "session_not_found": 404,
    "batch_not_found": 404,
    "session_conflict": 409,
    "session_running": 409,
    "not_retryable": 409,
    "already_retried": 409,
    "retry_in_progress": 409,
    "session_finished": 409,
    "batch_finished": 409,
    "batch_too_large": 413,
    "symbols_empty": 400,
    "unknown_symbols": 400,
    "invalid_watchlist": 400,
    "invalid_schedule": 400,
    "invalid_channel": 400,
    "watchlist_not_found": 404,
    "schedule_not_found": 404,
    "channel_not_found": 404,
    "delivery_not_found": 404,
    "watchlist_name_taken": 409,
    "delivery_not_failed": 409,
    "idempotency_key_reused": 409,
    "insufficient_history": 422,
    "token_budget_exhausted": 422,  # the research's token budget cannot pay for another model call
    # 429: the client's limits (rate_limited, research_quota_exceeded: the rate-limit middleware's own)
    "token_quota_exceeded": 429,
    "too_many_streams": 429,
    # 5xx: ours, or an upstream's (data provider, LLM, peer service)
    "internal_error": 500,
    "all_experts_failed": 500,
    "session_error": 500,
    "llm_output_invalid": 500,  # the debate spec fixes it: an answer the engine cannot read is our failure
    "llm_error": 502,
    "llm_upstream_error": 502,
    "data_provider_error": 502,
    "gateway_error": 502,
    "peer_error": 502,
    "peer_contract": 502,
    "llm_unavailable": 503,
    "peer_unavailable": 503,
    "session_store_unavailable": 503,
    "queue_full": 503,
    "llm_timeout": 504,
    "data_provider_timeout": 504,
    "peer_timeout": 504,
}


def status_of_code(code: str) -> int:
    """The HTTP status of a problem code; 500 for a code not in ``PROBLEM_STATUS``."""
    return PROBLEM_STATUS.get(code, 500)


class ProblemDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    code: str
    request_id: str | None = None
    errors: list[dict[str, Any]] | None = None

    def readable(self) -> str:
        """One line a person can read, e.g. ``404 symbol_not_found: no data for XYZ``."""
        return f"{self.status} {self.code}: {self.detail}"
