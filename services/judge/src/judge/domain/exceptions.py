"""The judge service's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``):

InvalidRequestError                 400 (shared_contracts.errors)
├── SymbolRequiredError             symbol_required (shared)
├── InvalidSymbolError              invalid_symbol (shared)
└── InvalidJudgeInputError          invalid_judge_input
LLMOutputParseError                 500 llm_output_invalid (shared)
VerdictRejectedError                500 verdict_rejected (the engine's verdict breaks a guardrail that
│                                       cannot be repaired by clamping)
└── ContradictoryVerdictError       500 verdict_contradicts_debate (BUY on BEARISH / SELL on BULLISH
                                        without a contrarian justification)

Failures of the LLM call itself are ``service_kit.llm`` errors (503 / 504 / 502).
"""

from __future__ import annotations

from shared_contracts.errors import (
    InvalidRequestError,
    ServiceError,
)


class InvalidJudgeInputError(InvalidRequestError):
    code = "invalid_judge_input"


class VerdictRejectedError(ServiceError):
    code = "verdict_rejected"


class ContradictoryVerdictError(VerdictRejectedError):
    code = "verdict_contradicts_debate"
