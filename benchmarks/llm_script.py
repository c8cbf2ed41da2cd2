"""The fake LLM's script: the valid replies of the nine roles from ``stack_fakes.llm_replies``.

``script(latency_ms)``: every role answers well after ``latency_ms``. ``with_fault(base, role)``: that role's
calls answer HTTP 400 (the openai SDK does not retry a 4xx; the role's service answers 502).
"""

from __future__ import annotations

from typing import Any

from stack_fakes import llm_replies


def script(latency_ms: float) -> dict[str, Any]:
    made: dict[str, Any] = llm_replies.script(latency_ms=latency_ms)
    return made


def with_fault(base: dict[str, Any], role: str, status: int = 400) -> dict[str, Any]:
    made: dict[str, Any] = llm_replies.fault(role, status, base=base)
    return made
