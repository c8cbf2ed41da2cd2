"""LLMAdapter: the debate's ILLMPort over any OpenAI-compatible endpoint.

The spec's monolith bridged to ``llm_platform.LLMService``; as a service, the debate delegates to
``shared_contracts.llm.OpenAICompatibleChat`` (the openai SDK, retries by the SDK) through the shared
``ChatCompletionsLLM`` body. Its failures surface as ``shared_contracts.llm`` errors, which the
presentation maps to 503 / 504 / 502.
"""

from __future__ import annotations

from debate.domain.ports.llm_port import ILLMPort
from shared_contracts.llm.chat_adapter import ChatCompletionsLLM


class LLMAdapter(ChatCompletionsLLM, ILLMPort):
    """``LLMAdapter(chat)``: ``generate`` returns the completion's text; ``aclose`` closes the client."""
