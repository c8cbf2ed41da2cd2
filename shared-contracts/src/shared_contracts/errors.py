"""Errors raised by more than one service, and the root of every service's errors.

Each error has a stable ``code``; the HTTP status of every code is ``problems.PROBLEM_STATUS`` (mapped
once, at the edge). ``problem_extra`` adds members to the problem detail (e.g. what the model wrote).

ServiceError
├── InvalidRequestError      invalid_request
│   ├── SymbolRequiredError  symbol_required (missing or blank)
│   └── InvalidSymbolError   invalid_symbol (not a symbol such as 600519.SH, 0700.HK, AAPL)
└── LLMOutputParseError      llm_output_invalid (the model's answer is not the promised JSON)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared_contracts.problems import raw_output_member


class ServiceError(Exception):
    code: str = "internal_error"
    problem_extra: Mapping[str, Any] | None = None


class InvalidRequestError(ServiceError):
    code = "invalid_request"


class SymbolRequiredError(InvalidRequestError):
    code = "symbol_required"


class InvalidSymbolError(InvalidRequestError):
    code = "invalid_symbol"


class LLMOutputParseError(ServiceError):
    """``agent`` names the debate agent that answered, where there are several."""

    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str = "", *, agent: str | None = None) -> None:
        super().__init__(message)
        self.raw_output = raw_output
        self.agent = agent
        extra = {"agent": agent} if agent else {}
        self.problem_extra = {**extra, **raw_output_member(raw_output)} or None
