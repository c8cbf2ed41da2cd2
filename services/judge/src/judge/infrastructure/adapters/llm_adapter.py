"""LLMAdapter: the judge's ``ILLMPort`` on the shared OpenAI-compatible client.

Call failures surface as ``shared_contracts.llm`` errors (unavailable 503, timeout 504, upstream 502)."""

from __future__ import annotations

from judge.domain.ports.llm import ILLMPort
from shared_contracts.llm.client import OpenAICompatibleChat


class LLMAdapter(ILLMPort):
    def __init__(self, chat: OpenAICompatibleChat) -> None:
        self._chat = chat

    @property
    def model(self) -> str:
        return self._chat.model

    async def generate(self, prompt: str, system_message: str | None, temperature: float) -> str:
        completion = await self._chat.complete(prompt, system_message, temperature)
        return completion.text

    async def aclose(self) -> None:
        await self._chat.aclose()
