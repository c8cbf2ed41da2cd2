"""LLMAdapter: the judge's ``ILLMPort`` on the shared OpenAI-compatible client (``ChatCompletionsLLM``).

Call failures surface as ``shared_contracts.llm`` errors (unavailable 503, timeout 504, upstream 502)."""

from __future__ import annotations

from judge.domain.ports.llm import ILLMPort
from shared_contracts.llm.chat_adapter import ChatCompletionsLLM


class LLMAdapter(ChatCompletionsLLM, ILLMPort):
    """``LLMAdapter(chat)``: ``generate`` returns the completion's text; ``aclose`` closes the client."""
