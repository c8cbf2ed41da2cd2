"""The judge service's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``):

InvalidRequestError                 400 (shared_contracts.errors)
├── SymbolRequiredError             symbol_required (shared)
├── InvalidSymbolError              invalid_symbol (shared)
└── InvalidJudgeInputError          invalid_judge_input
LLMOutputParseError                 500 llm_output_invalid (shared)

Failures of the LLM call itself are ``service_kit.llm`` errors (503 / 504 / 502).
"""

from __future__ import annotations

from shared_contracts.errors import InvalidRequestError


class InvalidJudgeInputError(InvalidRequestError):
    code = "invalid_judge_input"
