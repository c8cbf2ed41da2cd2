"""The usage of the model calls made while handling one request, and its token budget.

A peer's route opens a meter around its use case (``metering(budget)``); every ``OpenAICompatibleChat.complete``
inside it (parallel agents included: they share the request's context) first asks the meter whether the budget
still allows a call (``check``: ``TokenBudgetExhaustedError`` once the tokens used reach the budget) and then
records what the call used (``record``). The budget is checked before each call, not reserved: calls that start
while budget remains may together go past it by what they use (docs/decisions.md, "LLM usage and token budgets").

When the endpoint reports no ``usage``, the call's tokens are estimated from its text (``estimate_tokens``) and the
usage is marked ``estimated``.

Example::

    with metering(budget=request_budget) as meter:
        result = await use_case.run(...)
    result.usage = meter.usage
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from shared_contracts.errors import TokenBudgetExhaustedError
from shared_contracts.usage import LLMUsage

_meter_of_this_request: ContextVar[UsageMeter | None] = ContextVar("llm_usage_meter", default=None)

CHARS_PER_TOKEN = 4
"""Characters per token of text outside the CJK ranges: OpenAI's documented rule of thumb for English."""


def _is_wide(char: str) -> bool:
    """CJK ideographs, kana, Hangul and full-width forms: about one token each in the GPT tokenizers."""
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF  # kana
        or 0x3400 <= code <= 0x4DBF  # CJK extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x3000 <= code <= 0x303F  # CJK punctuation
    )


def estimate_tokens(text: str) -> int:
    """A character-based estimate: one token per CJK character, one per ``CHARS_PER_TOKEN`` other characters
    (rounded up). Used only when the endpoint reports no usage; the result is marked ``estimated``."""
    wide = sum(1 for char in text if _is_wide(char))
    return wide + math.ceil((len(text) - wide) / CHARS_PER_TOKEN)


class UsageMeter:
    """What one request's model calls used, against an optional token budget."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = budget
        self.usage = LLMUsage()

    @property
    def remaining(self) -> int | None:
        return None if self.budget is None else self.budget - self.usage.tokens

    def check(self) -> None:
        """Raises ``TokenBudgetExhaustedError`` when the budget allows no further call."""
        if self.budget is not None and self.usage.tokens >= self.budget:
            raise TokenBudgetExhaustedError(self.budget, self.usage.tokens)

    def record(self, usage: LLMUsage) -> None:
        self.usage = self.usage + usage


def current_meter() -> UsageMeter | None:
    """The meter of the request being handled, if its route opened one."""
    return _meter_of_this_request.get()


@contextmanager
def metering(budget: int | None = None) -> Iterator[UsageMeter]:
    """A fresh meter for the model calls made inside the block."""
    meter = UsageMeter(budget)
    token = _meter_of_this_request.set(meter)
    try:
        yield meter
    finally:
        _meter_of_this_request.reset(token)


def call_usage(
    model: str, prompt_tokens: int | None, completion_tokens: int | None, prompt_text: str, output_text: str
) -> LLMUsage:
    """One call's usage: as the endpoint reported it, else estimated from the texts (``estimated``)."""
    if prompt_tokens is not None and completion_tokens is not None:
        return LLMUsage(llm_calls=1, input_tokens=prompt_tokens, output_tokens=completion_tokens, model=model)
    return LLMUsage(
        llm_calls=1,
        input_tokens=prompt_tokens if prompt_tokens is not None else estimate_tokens(prompt_text),
        output_tokens=completion_tokens if completion_tokens is not None else estimate_tokens(output_text),
        estimated=True,
        model=model,
    )
