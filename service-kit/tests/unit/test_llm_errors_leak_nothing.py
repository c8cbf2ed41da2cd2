"""An OpenAI-compatible endpoint that echoes the request's key and Authorization header in what it answers:
the ``LLMError`` raised says what happened in our own words (status, the SDK's exception class) and holds no
key, not in its message, not in its traceback; what the endpoint said is logged at DEBUG, redacted."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable

import httpx2
import pytest
from contract_testkit import completion_body, mock_chat

from service_kit.llm.errors import LLMError, LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from service_kit.logging import flush_logs

KEY = "sk-test-SECRET-123456"


def echoing(status: int, *, shape: str = "error") -> Callable[[httpx2.Request], httpx2.Response]:
    """Answers ``status`` with a body quoting the request's Authorization header and the key in it."""

    def respond(request: httpx2.Request) -> httpx2.Response:
        header = request.headers["authorization"]
        assert KEY in header  # the key was sent: the endpoint has it to echo
        said = f"Incorrect API key provided: {header.removeprefix('Bearer ')}. You sent Authorization: {header}"
        if shape == "garbage":
            return httpx2.Response(status, text=f"<html><pre>{said}</pre></html>")
        if shape == "refusal":
            body = completion_body("")
            body["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": said}
            return httpx2.Response(status, json=body)
        return httpx2.Response(status, json={"error": {"message": said, "type": "invalid_request_error"}})

    return respond


@pytest.mark.usefixtures("json_debug_logs")
@pytest.mark.parametrize(
    ("respond", "error", "message"),
    [
        (echoing(401), LLMUpstreamError, "the LLM endpoint refused the call: it answered 401 (AuthenticationError)"),
        (echoing(403), LLMUpstreamError, "the LLM endpoint refused the call: it answered 403 (PermissionDeniedError)"),
        (echoing(500), LLMUnavailableError, "the LLM endpoint answered 500 (InternalServerError)"),
        (echoing(429), LLMUnavailableError, "the LLM endpoint is rate-limiting calls (429, RateLimitError)"),
        (echoing(408), LLMTimeoutError, "the LLM endpoint gave up on the call (408, APIStatusError)"),
        (echoing(200), LLMUpstreamError, "the LLM endpoint answered 200 with an error object instead of a completion"),
        (echoing(200, shape="garbage"), LLMUpstreamError, "the LLM endpoint's reply is not a chat completion ("),
        (echoing(200, shape="refusal"), LLMUpstreamError, "the model refused to answer ("),
    ],
    ids=["401", "403", "500", "429", "408", "200-error-object", "200-garbage", "200-refusal"],
)
async def test_an_endpoint_echoing_the_key_gets_it_into_no_error_and_no_log_line(
    respond: Callable[[httpx2.Request], httpx2.Response],
    error: type[LLMError],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    chat = mock_chat(respond, api_key=KEY, max_retries=0)
    try:
        with pytest.raises(error) as caught:
            await chat.complete("p", None, 0.0)
    finally:
        await chat.aclose()
    flush_logs()
    logged = capsys.readouterr().err

    assert str(caught.value).startswith(message)
    assert "Incorrect API key" not in str(caught.value)  # the endpoint's words are not ours to pass on
    shown = "".join(traceback.format_exception(caught.value))
    assert KEY not in shown
    assert "SECRET" not in shown
    assert KEY not in logged
    assert "SECRET" not in logged
    said = [json.loads(line) for line in logged.splitlines() if '"llm_' in line]
    assert said, "what the endpoint said is logged at DEBUG"
    assert all("[REDACTED]" in json.dumps(line) for line in said)
