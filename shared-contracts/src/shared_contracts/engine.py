"""Which engine produced a result: stated on every analysis, never hidden."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class EngineInfo(BaseModel):
    kind: Literal["llm", "rules"]
    model: str | None = None
    fallback_reason: str | None = None
    """Set when the LLM engine failed and the rules engine answered instead (LLM_FALLBACK_TO_RULES)."""
