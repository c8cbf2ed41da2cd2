"""The debate's own LLM port (independent of any other service's port)."""

from __future__ import annotations

from abc import ABC, abstractmethod


class ILLMPort(ABC):
    @abstractmethod
    async def generate(self, prompt: str, system_message: str | None, temperature: float) -> str:
        """Return the model's raw text answer to ``prompt``."""
