"""OpenAICompatibleChat against a mocked OpenAI-compatible endpoint (openai 3 uses httpx2)."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from contract_testkit import completion_body, mock_chat

from service_kit.llm.chat_adapter import ChatCompletionsLLM
from service_kit.llm.client import OpenAICompatibleChat
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from shared_contracts.errors import LLMOutputParseError


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


async def test_a_rate_limit_asking_to_wait_past_the_timeout_is_named_as_one() -> None:
    """The LLM answered at once: 429 with a Retry-After beyond the budget; not a timeout of the LLM."""
    calls = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal calls
        calls += 1
        return httpx2.Response(429, headers={"retry-after": "30"}, json={"error": {"message": "slow down"}})

    started = asyncio.get_running_loop().time()
    with pytest.raises(
        LLMUnavailableError,
        match=r"rate-limiting calls \(429\) and asked to be retried later than LLM_TIMEOUT_SECONDS \(0.3 s\) allows",
    ):
        await chat(handler, timeout_seconds=0.3, max_retries=2).complete("p", None, 0.0)
    assert asyncio.get_running_loop().time() - started < 2
    assert calls == 1  # the SDK was waiting the 30 s it was asked to when the budget ran out


async def test_an_llm_that_hangs_after_a_short_rate_limit_is_a_timeout() -> None:
    async def respond(request: httpx2.Request) -> httpx2.Response:
        if not hung:
            hung.append(True)
            return httpx2.Response(429, headers={"retry-after-ms": "10"}, json={"error": {"message": "slow down"}})
        await asyncio.sleep(10)
        raise AssertionError("unreachable")

    hung: list[bool] = []
    with pytest.raises(LLMTimeoutError, match=r"did not answer within 1 s"):
        await chat(respond, timeout_seconds=1, max_retries=2).complete("p", None, 0.0)
    assert hung == [True]


async def test_a_trickling_answer_ends_at_the_timeout() -> None:
    async def trickle() -> AsyncIterator[bytes]:
        while True:
            yield b" "
            await asyncio.sleep(0.05)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=trickle())

    with pytest.raises(LLMTimeoutError, match=r"within 0\.3 s"):
        await chat(handler, timeout_seconds=0.3).complete("p", None, 0.0)


@pytest.mark.parametrize(
    ("status", "error", "message"),
    [
        (429, LLMUnavailableError, r"rate-limiting calls \(429, RateLimitError\)$"),
        (408, LLMTimeoutError, r"gave up on the call \(408, APIStatusError\)$"),
    ],
)
async def test_rate_limits_and_request_timeouts_are_not_refusals(
    status: int, error: type[Exception], message: str
) -> None:
    reply = httpx2.Response(status, json={"error": {"message": "try later"}})
    with pytest.raises(error, match=message):
        await chat(lambda request: reply).complete("p", None, 0.0)


@pytest.mark.parametrize(
    ("choice", "error", "message"),
    [
        (
            {"message": {"content": None, "refusal": "I can't help with that."}, "finish_reason": "stop"},
            LLMUpstreamError,
            r"^the model refused to answer \(23 characters of refusal\)$",
        ),
        (
            {"message": {"content": None, "tool_calls": [{"type": "function"}]}, "finish_reason": "tool_calls"},
            LLMUpstreamError,
            "a tool call instead of text",
        ),
        (
            {"message": {"content": '{"signal": "bull'}, "finish_reason": "length"},
            LLMOutputParseError,
            r"cut off at its length limit after 7 tokens \(finish_reason=length\)",
        ),
        (
            {"message": {"content": "{}"}, "finish_reason": "content_filter"},
            LLMUpstreamError,
            "content filter stopped the output",
        ),
    ],
)
async def test_a_reply_without_usable_text_says_why(
    choice: dict[str, Any], error: type[Exception], message: str
) -> None:
    body = {"model": "m", "choices": [choice], "usage": {"prompt_tokens": 11, "completion_tokens": 7}}
    with pytest.raises(error, match=message):
        await chat(lambda request: httpx2.Response(200, json=body)).complete("p", None, 0.0)


async def test_an_error_object_in_a_200_reply_is_named_without_its_text() -> None:
    body = {"error": {"message": "quota exceeded for this key"}}
    with pytest.raises(LLMUpstreamError, match="answered 200 with an error object") as caught:
        await chat(lambda request: httpx2.Response(200, json=body)).complete("p", None, 0.0)
    assert "quota" not in str(caught.value)


async def test_a_reply_that_is_not_utf8_says_so() -> None:
    with pytest.raises(LLMUpstreamError, match=r"not a chat completion \(Invalid JSON: invalid unicode code point"):
        await chat(lambda request: httpx2.Response(200, content=b'{"choices": "\xff\xfe"}')).complete("p", None, 0.0)


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(1000)
    writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.close()


async def test_over_the_sdk_transport_a_refused_or_reset_connection_is_unavailable_not_a_timeout() -> None:
    """The SDK's aiohttp transport calls both a connect *timeout*."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    resetting = await asyncio.start_server(_refuse, "127.0.0.1", 0)
    reset_port = resetting.sockets[0].getsockname()[1]
    try:
        for port, reason in (
            (closed_port, r"connection refused \(ConnectionRefusedError\)"),
            (reset_port, r"connection reset \(ConnectionResetError\)"),
        ):
            real = OpenAICompatibleChat(
                model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k", timeout_seconds=5, max_retries=0
            )
            try:
                with pytest.raises(LLMUnavailableError, match=f"^the LLM endpoint is unreachable: {reason}$"):
                    await real.complete("p", None, 0.0)
            finally:
                await real.aclose()
    finally:
        resetting.close()
