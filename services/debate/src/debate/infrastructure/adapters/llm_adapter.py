"""LLMAdapter: the debate's ILLMPort over any OpenAI-compatible endpoint.

The spec's monolith bridged to ``llm_platform.LLMService``; as a service, the debate delegates to
``shared_contracts.llm.OpenAICompatibleChat`` (the openai SDK, retries by the SDK). Its failures surface
as ``shared_contracts.llm`` errors, which the presentation maps to 503 / 504 / 502.
"""

from __future__ import annotations

from debate.domain.ports.llm_port import ILLMPort
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
