"""The judge service's errors, each with a stable ``code`` (``presentation/rest/errors.py`` maps them to HTTP):

JudgeError
├── InvalidJudgeInputError          400 invalid_judge_input
│   ├── SymbolRequiredError         400 symbol_required
│   └── InvalidSymbolError          400 invalid_symbol
├── LLMOutputParseError             500 llm_output_invalid (the model's answer is not the promised JSON)
└── VerdictRejectedError            500 verdict_rejected (the engine's verdict breaks a guardrail that
    │                                    cannot be repaired by clamping)
    └── ContradictoryVerdictError   500 verdict_contradicts_debate (BUY on BEARISH / SELL on BULLISH
                                         without a contrarian justification)

Failures of the LLM call itself are ``shared_contracts.llm`` errors (503 unavailable, 504 timeout,
502 upstream refusal); they pass through the domain untouched.
"""

from __future__ import annotations

from shared_contracts.problems import raw_output_member


class JudgeError(Exception):
    code = "judge_error"


class InvalidJudgeInputError(JudgeError):
    code = "invalid_judge_input"


class SymbolRequiredError(InvalidJudgeInputError):
    code = "symbol_required"


class InvalidSymbolError(InvalidJudgeInputError):
    code = "invalid_symbol"


class LLMOutputParseError(JudgeError):
    code = "llm_output_invalid"

    def __init__(self, message: str, raw_output: str = "") -> None:
        super().__init__(message)
        self.raw_output = raw_output
        self.problem_extra = raw_output_member(raw_output) or None


class VerdictRejectedError(JudgeError):
    code = "verdict_rejected"


class ContradictoryVerdictError(VerdictRejectedError):
    code = "verdict_contradicts_debate"
