"""LLMAdapter: the debate's ILLMPort over any OpenAI-compatible endpoint (the spec's bridge to
``llm_platform``): the shared ``ChatCompletionsLLM`` on ``OpenAICompatibleChat``, whose failures are
``service_kit.llm`` errors (503 / 504 / 502)."""

from __future__ import annotations

from debate.domain.ports.llm_port import ILLMPort
from service_kit.llm.chat_adapter import ChatCompletionsLLM


class LLMAdapter(ChatCompletionsLLM, ILLMPort):
    """``LLMAdapter(chat)``: ``generate`` returns the completion's text."""
