"""The debate service's errors, each with a stable ``code`` (presentation maps them to HTTP, once):

DebateError
├── InvalidDebateInputError        400 invalid_request
│   ├── SymbolRequiredError        symbol_required
│   ├── InvalidSymbolError         invalid_symbol (not a ticker-like code)
│   ├── ExpertResultsEmptyError    expert_results_empty (missing or ``{}``)
│   ├── TooManyExpertsError        too_many_experts
│   ├── NoUsableExpertResultError  no_successful_experts (every expert failed)
│   ├── InvalidExpertResultError   invalid_expert_result (not readable as a summary; names the expert)
│   ├── UnknownSignalError         unknown_signal (a verdict word outside the experts' vocabularies)
│   └── SymbolMismatchError        symbol_mismatch (an expert result is about another symbol)
└── LLMOutputParseError            500 llm_output_invalid (the model's answer is not the promised JSON)

Failures of the LLM call itself are ``shared_contracts.llm`` errors (503 / 504 / 502), mapped likewise.
"""

from __future__ import annotations

from typing import Any

from shared_contracts.problems import raw_output_member


class DebateError(Exception):
    code = "debate_error"


class InvalidDebateInputError(DebateError):
    code = "invalid_request"


class SymbolRequiredError(InvalidDebateInputError):
    code = "symbol_required"


class InvalidSymbolError(InvalidDebateInputError):
    code = "invalid_symbol"


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


class LLMOutputParseError(DebateError):
    """An agent's LLM answer could not be read as its JSON contract (bad JSON, wrong fields or values)."""

    code = "llm_output_invalid"

    def __init__(self, message: str, *, agent: str, raw_output: str = "") -> None:
        super().__init__(message)
        self.agent = agent
        self.raw_output = raw_output
        self.problem_extra: dict[str, Any] = {"agent": agent, **raw_output_member(raw_output)}
