"""ILLMPort: the judge's own bridge to a language model (independent of the other services' ports)."""

from __future__ import annotations

from abc import ABC, abstractmethod


class ILLMPort(ABC):
    @abstractmethod
    async def generate(self, prompt: str, system_message: str | None, temperature: float) -> str:
        """Return the model's text for one prompt."""
