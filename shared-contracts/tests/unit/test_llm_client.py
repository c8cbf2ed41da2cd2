"""OpenAICompatibleChat against a mocked OpenAI-compatible endpoint (openai 3 uses httpx2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from contract_testkit import completion_body, mock_chat

from shared_contracts.llm.chat_adapter import ChatCompletionsLLM
from shared_contracts.llm.client import OpenAICompatibleChat
from shared_contracts.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError


def completion(content: str) -> dict[str, Any]:
    return completion_body(content, usage=(11, 7), completion_id="c1")


def chat(handler: Callable[[httpx2.Request], httpx2.Response], **kwargs: Any) -> OpenAICompatibleChat:
    return mock_chat(handler, api_key="k", **kwargs)


async def test_sends_system_user_temperature_and_json_mode() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=completion('{"ok": true}'))

    result = await chat(handler).complete("the prompt", "the system", 0.2)
    assert result.text == '{"ok": true}'
    assert (result.prompt_tokens, result.completion_tokens) == (11, 7)
    body = seen[0]
    assert body["messages"] == [
        {"role": "system", "content": "the system"},
        {"role": "user", "content": "the prompt"},
    ]
    assert body["temperature"] == 0.2
    assert body["response_format"] == {"type": "json_object"}


async def test_json_mode_can_be_switched_off() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=completion("{}"))

    await chat(handler, json_mode=False).complete("p", None, 0.0)
    assert "response_format" not in seen[0]
    assert [m["role"] for m in seen[0]["messages"]] == ["user"]


async def test_server_error_is_unavailable_after_sdk_retries() -> None:
    calls = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal calls
        calls += 1
        return httpx2.Response(503, json={"error": {"message": "overloaded"}})

    with pytest.raises(LLMUnavailableError, match="503"):
        await chat(handler, max_retries=1).complete("p", None, 0.0)
    assert calls == 2


async def test_refusal_is_upstream_error_without_retry() -> None:
    calls = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal calls
        calls += 1
        return httpx2.Response(401, json={"error": {"message": "bad key"}})

    with pytest.raises(LLMUpstreamError, match="401"):
        await chat(handler, max_retries=2).complete("p", None, 0.0)
    assert calls == 1


async def test_timeout_is_llm_timeout() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("slow", request=request)

    with pytest.raises(LLMTimeoutError):
        await chat(handler).complete("p", None, 0.0)


async def test_connection_refused_is_unavailable() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(LLMUnavailableError, match="unreachable"):
        await chat(handler).complete("p", None, 0.0)


async def test_chat_completions_llm_generates_the_completion_text_and_closes_the_client() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=completion("the answer"))

    llm = ChatCompletionsLLM(chat(handler))
    try:
        assert await llm.generate("the prompt", "the system", 0.3) == "the answer"
    finally:
        await llm.aclose()
    assert llm.model == "test-model"
    assert seen[0]["messages"][0] == {"role": "system", "content": "the system"}
    assert seen[0]["temperature"] == 0.3


async def test_a_reply_without_usage_model_or_ids_is_read() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"choices": [{"message": {"content": "bare"}}]})

    result = await chat(handler).complete("p", None, 0.0)
    assert (result.text, result.model) == ("bare", "test-model")
    assert (result.prompt_tokens, result.completion_tokens) == (None, None)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (httpx2.Response(200, text="<html>a proxy's page</html>"), "not a chat completion"),
        (httpx2.Response(200, json={"choices": [{"message": {"content": ["parts"]}}]}), "not a chat completion"),
        (httpx2.Response(200, json={"error": None}), "no choices"),
    ],
)
async def test_a_reply_that_is_not_a_chat_completion_is_an_upstream_error(reply: httpx2.Response, message: str) -> None:
    with pytest.raises(LLMUpstreamError, match=message):
        await chat(lambda request: reply).complete("p", None, 0.0)
