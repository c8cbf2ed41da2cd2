"""The body every service's ``LLMAdapter`` shares: its own ``ILLMPort.generate`` over the chat client.

Each service keeps its own port (an ABC in its domain) and its own ``LLMAdapter`` name; the adapter is
``class LLMAdapter(ChatCompletionsLLM, ILLMPort)``. Token usage is recorded by
``OpenAICompatibleChat.complete`` (the ``llm_call`` log event); call failures surface as
``service_kit.llm`` errors (unavailable 503, timeout 504, upstream 502)."""

from __future__ import annotations

from service_kit.llm.client import OpenAICompatibleChat


class ChatCompletionsLLM:
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
