"""An OpenAI-compatible chat client (the ``openai`` SDK; any endpoint via LLM_BASE_URL)."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx2
import openai
import structlog
from pydantic import BaseModel, ValidationError

from service_kit.llm.call_limits import CallLimits, ModelCallLimiter, Turn
from service_kit.llm.errors import LLMError, LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from service_kit.llm.tracing import traced_model_call
from service_kit.llm.usage_meter import call_usage, current_meter
from service_kit.settings import EngineSettings
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.redaction import describe_connection_failure, redact_secrets

log = structlog.get_logger(__name__)

MAX_MODEL_NAME_CHARS = 200
"""The ``model`` a reply names is stored with every result: a longer one is refused (``llm_output_invalid``)."""

_attempts_of_this_call: ContextVar[list[int | None] | None] = ContextVar("llm_attempts_of_this_call", default=None)
"""Each HTTP attempt of the current ``complete`` call: its status, None while unanswered (the SDK retries
inside the caller's task, so the hooks see the call's context)."""


async def _record_request(_request: httpx2.Request) -> None:
    attempts = _attempts_of_this_call.get()
    if attempts is not None:
        attempts.append(None)


async def _record_status(response: httpx2.Response) -> None:
    attempts = _attempts_of_this_call.get()
    if attempts:
        attempts[-1] = response.status_code


class _ToolCall(BaseModel):
    type: str | None = None


class _Message(BaseModel):
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(BaseModel):
    message: _Message
    finish_reason: str | None = None


class _Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _Error(BaseModel):
    message: str | None = None


class ChatReply(BaseModel):
    """The fields of a chat completion this client reads. Parsed from the body's bytes by pydantic-core,
    which costs less than the SDK building its whole ``ChatCompletion`` without validation (~0.2 ms of
    ~1.1 ms of CPU per call, benchmarks/README.md), and checks what it reads; what an OpenAI-compatible
    server may leave out (usage, model, ids, timestamps) may be missing. Some servers answer 200 with an
    ``error`` object instead of choices."""

    model: str | None = None
    choices: list[_Choice] = []
    usage: _Usage | None = None
    error: _Error | None = None


@dataclass(frozen=True)
class LLMCompletion:
    text: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None


class OpenAICompatibleChat:
    """One chat completion per call. The SDK retries connection errors, 408/409/429 and 5xx with
    exponential backoff (``max_retries``, honouring ``Retry-After``); what still fails is raised as an
    ``LLMError`` that says what happened in our own words: the status the endpoint answered and the SDK's
    exception class, never the endpoint's response text or the SDK's message (a provider may echo the
    request's Authorization header in either); what the endpoint said is logged at DEBUG, redacted.
    ``timeout_seconds`` bounds the whole call, retries and their waits included: the SDK's
    own timeout applies to each attempt and to each read, so a server that trickles its answer or asks
    to be retried after minutes would otherwise hold the call for as long as it likes.

    Each call first waits its turn under ``limiter``'s model-call limits (``service_kit.llm.call_limits``;
    none without one); that wait counts in ``timeout_seconds`` too: a call still waiting when it runs out is
    ``LLMUnavailableError``, as one whose endpoint asked for a retry later than the timeout allows.

    Without an injected ``http_client`` the SDK's aiohttp transport is used (``openai[aiohttp]``,
    ``DefaultAioHttpClient``): the SDK's documented choice for concurrency, and about half the CPU per
    call of its default transport (benchmarks/README.md)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout_seconds: float,
        max_retries: int,
        json_mode: bool = True,
        http_client: httpx2.AsyncClient | None = None,
        limiter: ModelCallLimiter | None = None,
    ) -> None:
        self.model = model
        self.limiter = limiter if limiter is not None else ModelCallLimiter(model, CallLimits())
        self.base_url = base_url
        self._json_mode = json_mode
        self._timeout_seconds = timeout_seconds
        client = http_client if http_client is not None else openai.DefaultAioHttpClient()
        hooks = client.event_hooks
        client.event_hooks = {
            "request": [*hooks["request"], _record_request],
            "response": [*hooks["response"], _record_status],
        }
        self._client = openai.AsyncOpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url,
            timeout=timeout_seconds,
            max_retries=max_retries,
            http_client=client,
        )

    @traced_model_call
    async def complete(self, prompt: str, system_message: str | None, temperature: float) -> LLMCompletion:
        messages: list[dict[str, str]] = []
        if system_message:
            messages.append({"role": "system", "content": system_message})
        messages.append({"role": "user", "content": prompt})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        _check_token_budget()
        turn = self.limiter.turn(self.limiter.reservation("\n".join(m["content"] for m in messages)))
        attempts: list[int | None] = []
        recording = _attempts_of_this_call.set(attempts)
        try:
            # The SDK's request method for the same endpoint (its documented way to send a body as
            # given): ``chat.completions.create`` first walks every parameter through its TypedDict
            # transform, about 2 ms of CPU per call for these four plain fields (benchmarks/README.md).
            # Retries and errors are the SDK's; the body comes back as bytes (``ChatReply``).
            async with asyncio.timeout(self._timeout_seconds), turn:
                raw: bytes = await self._client.post("/chat/completions", cast_to=bytes, body=body)
        except TimeoutError as exc:
            if not turn.granted:
                raise LLMUnavailableError(
                    "the model-call limits (LLM_MAX_CONCURRENCY, LLM_REQUESTS_PER_MINUTE, LLM_TOKENS_PER_MINUTE) "
                    f"kept the call waiting for its turn longer than LLM_TIMEOUT_SECONDS ({self._timeout_seconds:g} s)"
                ) from exc
            if attempts and attempts[-1] == 429:  # the budget ran out while the SDK waited as it was told
                raise LLMUnavailableError(
                    "the LLM endpoint is rate-limiting calls (429) and asked to be retried later than "
                    f"LLM_TIMEOUT_SECONDS ({self._timeout_seconds:g} s) allows"
                ) from exc
            raise LLMTimeoutError(
                f"the LLM endpoint did not answer within {self._timeout_seconds:g} s "
                "(LLM_TIMEOUT_SECONDS, retries included)"
            ) from exc
        except openai.APIConnectionError as exc:
            raise _connection_failure(exc) from exc
        except openai.APIStatusError as exc:
            raise _status_failure(exc) from None  # the SDK's exception holds the answer's text
        finally:
            _attempts_of_this_call.reset(recording)
        try:
            completion = _read_reply(raw, self.model)
        except (LLMError, LLMOutputParseError):
            _meter_unreadable_reply(raw, self.model, messages)
            raise
        await _settle_tokens(turn, completion, messages)
        _meter_completion(completion, messages)
        log.info(
            "llm_call",
            model=completion.model,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
        )
        return completion

    async def aclose(self) -> None:
        await self._client.close()
        await self.limiter.aclose()


def _status_failure(exc: openai.APIStatusError) -> LLMUnavailableError | LLMTimeoutError | LLMUpstreamError:
    """The error for a non-2xx answer: its status and the SDK's class for it (``AuthenticationError``). The
    answer's text (``exc.message``, ``exc.body``) is only logged, at DEBUG and redacted."""
    status, kind = exc.status_code, type(exc).__name__
    log.debug("llm_error_answer", status=status, error=kind, answer=_excerpt(exc.message))
    if isinstance(exc, openai.RateLimitError):
        return LLMUnavailableError(f"the LLM endpoint is rate-limiting calls (429, {kind})")
    if isinstance(exc, openai.InternalServerError):
        return LLMUnavailableError(f"the LLM endpoint answered {status} ({kind})")
    if status == 408:
        return LLMTimeoutError(f"the LLM endpoint gave up on the call (408, {kind})")
    return LLMUpstreamError(f"the LLM endpoint refused the call: it answered {status} ({kind})")


def _connection_failure(exc: openai.APIConnectionError) -> LLMTimeoutError | LLMUnavailableError:
    """The SDK's aiohttp transport reports every failure to connect as a connect *timeout*; the error it
    wraps says what happened (refused, reset, disconnected, or a real timeout). Its message names the host,
    so only what happened and the exception's class are said."""
    root: BaseException = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if isinstance(exc, openai.APITimeoutError) and isinstance(root, TimeoutError | httpx2.TimeoutException):
        return LLMTimeoutError(f"the LLM endpoint did not answer in time ({type(root).__name__})")
    return LLMUnavailableError(f"the LLM endpoint is unreachable: {describe_connection_failure(exc)}")


def _excerpt(text: str | None, limit: int = 300) -> str:
    """The beginning of what an endpoint said, on one line, redacted: for a DEBUG log line only."""
    flat = " ".join((text or "").split())
    return redact_secrets(flat[:limit])


def _read_reply(raw: bytes, configured_model: str) -> LLMCompletion:
    """The completion's text (secrets masked: ``redact_secrets``), or the error that says why the reply holds
    none."""
    try:
        reply = ChatReply.model_validate_json(raw)
    except ValidationError as exc:
        error = exc.errors()[0]  # its message is pydantic's own, without the input
        where = ".".join(str(part) for part in error["loc"])
        reason = f"{where}: {error['msg']}" if where else error["msg"]
        log.debug("llm_unreadable_answer", answer=_excerpt(raw[:1000].decode("utf-8", "replace")))
        raise LLMUpstreamError(
            f"the LLM endpoint's reply is not a chat completion ({reason}; {len(raw)} bytes)"
        ) from None
    if not reply.choices:
        if reply.error is not None and reply.error.message:
            log.debug("llm_error_answer", status=200, answer=_excerpt(reply.error.message))
            raise LLMUpstreamError("the LLM endpoint answered 200 with an error object instead of a completion")
        raise LLMUpstreamError("the LLM endpoint returned no choices")
    if reply.model is not None and len(reply.model) > MAX_MODEL_NAME_CHARS:
        raise LLMOutputParseError(
            f"the LLM endpoint's reply names a model of {len(reply.model)} characters, "
            f"more than {MAX_MODEL_NAME_CHARS}",
            raw_output="",
        )
    choice = reply.choices[0]
    message = choice.message
    text = redact_secrets(message.content or "")  # stored and answered as results' raw output: secrets masked
    usage = reply.usage
    completion_tokens = usage.completion_tokens if usage else None
    if not text.strip():
        if message.refusal:
            log.debug("llm_refusal", refusal=_excerpt(message.refusal))
            raise LLMUpstreamError(f"the model refused to answer ({len(message.refusal)} characters of refusal)")
        if message.tool_calls:
            raise LLMUpstreamError("the model answered with a tool call instead of text")
    if choice.finish_reason == "length":
        tokens = f" after {completion_tokens} tokens" if completion_tokens is not None else ""
        raise LLMOutputParseError(
            f"the model's output was cut off at its length limit{tokens} (finish_reason=length)", text
        )
    if choice.finish_reason == "content_filter":
        raise LLMUpstreamError("the LLM's content filter stopped the output (finish_reason=content_filter)")
    return LLMCompletion(
        text=text,
        model=reply.model or configured_model,
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=completion_tokens,
    )


# Usage metering (service_kit.llm.usage_meter): the request's budget is checked before each call, and what
# each answered call used is recorded, as the endpoint reported it or estimated from the texts.


def _check_token_budget() -> None:
    meter = current_meter()
    if meter is not None:
        meter.check()


def _meter_completion(completion: LLMCompletion, messages: list[dict[str, str]]) -> None:
    meter = current_meter()
    if meter is not None:
        prompt = "\n".join(m["content"] for m in messages)
        usage = call_usage(
            completion.model, completion.prompt_tokens, completion.completion_tokens, prompt, completion.text
        )
        meter.record(usage)


async def _settle_tokens(turn: Turn, completion: LLMCompletion, messages: list[dict[str, str]]) -> None:
    """Corrects the call's token reservation (if it made one) by what it used."""
    if turn.reserved_tokens:
        prompt = "\n".join(m["content"] for m in messages)
        usage = call_usage(
            completion.model, completion.prompt_tokens, completion.completion_tokens, prompt, completion.text
        )
        await turn.settle(usage.tokens)


def _meter_unreadable_reply(raw: bytes, model: str, messages: list[dict[str, str]]) -> None:
    """A 2xx reply that is no usable completion (cut off, refused) still used tokens: what it reports, if any."""
    meter = current_meter()
    if meter is None:
        return
    try:
        reply = ChatReply.model_validate_json(raw)
    except ValidationError:
        reply = ChatReply()
    usage = reply.usage or _Usage()
    text = (reply.choices[0].message.content or "") if reply.choices else ""
    prompt = "\n".join(m["content"] for m in messages)
    meter.record(call_usage(model, usage.prompt_tokens, usage.completion_tokens, prompt, text))


def build_chat_client(settings: EngineSettings, http_client: httpx2.AsyncClient | None = None) -> OpenAICompatibleChat:
    assert settings.llm_model, "EngineSettings validation guarantees LLM_MODEL with the LLM engine"
    return OpenAICompatibleChat(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key,
        timeout_seconds=settings.llm_timeout_seconds,
        max_retries=settings.llm_max_retries,
        json_mode=settings.llm_json_mode,
        http_client=http_client,
        limiter=ModelCallLimiter.from_settings(settings),
    )
