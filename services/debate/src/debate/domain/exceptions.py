"""The debate service's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``):

InvalidRequestError                400 invalid_request (shared_contracts.errors)
├── SymbolRequiredError            symbol_required (shared)
├── InvalidSymbolError             invalid_symbol (shared)
└── InvalidDebateInputError        the root of the debate's own 400s (never raised itself)
    ├── ExpertResultsEmptyError    expert_results_empty (missing or ``{}``)
    ├── TooManyExpertsError        too_many_experts
    ├── NoUsableExpertResultError  no_successful_experts (every expert failed)
    └── InvalidExpertResultError   invalid_expert_result (not readable as a summary; names the expert)
        ├── UnknownSignalError     unknown_signal (a verdict word outside the experts' vocabularies)
        └── SymbolMismatchError    symbol_mismatch (an expert result is about another symbol)
LLMOutputParseError                500 llm_output_invalid (shared; names the agent)

Failures of the LLM call itself are ``service_kit.llm`` errors (503 / 504 / 502).
"""

from __future__ import annotations

from typing import Any

from shared_contracts.errors import (
    InvalidRequestError,
)


class InvalidDebateInputError(InvalidRequestError):
    """The root of the debate's own 400s (never raised itself)."""


class ExpertResultsEmptyError(InvalidDebateInputError):
    code = "expert_results_empty"


class TooManyExpertsError(InvalidDebateInputError):
    code = "too_many_experts"


class NoUsableExpertResultError(InvalidDebateInputError):
    code = "no_successful_experts"


class InvalidExpertResultError(InvalidDebateInputError):
    code = "invalid_expert_result"

    def __init__(self, message: str, expert: str) -> None:
        super().__init__(message)
        self.expert = expert
        self.problem_extra: dict[str, Any] = {"expert": expert}


class UnknownSignalError(InvalidExpertResultError):
    code = "unknown_signal"


class SymbolMismatchError(InvalidExpertResultError):
    code = "symbol_mismatch"
