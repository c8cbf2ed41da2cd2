"""An OpenAI-compatible chat client (the ``openai`` SDK; any endpoint via LLM_BASE_URL)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2
import openai
import structlog
from pydantic import BaseModel, ValidationError

from shared_contracts.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from shared_contracts.service.settings import EngineSettings

log = structlog.get_logger(__name__)


class _Message(BaseModel):
    content: str | None = None


class _Choice(BaseModel):
    message: _Message


class _Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class ChatReply(BaseModel):
    """The fields of a chat completion this client reads. Parsed from the body's bytes by pydantic-core,
    which costs less than the SDK building its whole ``ChatCompletion`` without validation (~0.2 ms of
    ~1.1 ms of CPU per call, benchmarks/README.md), and checks what it reads; what an OpenAI-compatible
    server may leave out (usage, model, ids, timestamps) may be missing."""

    model: str | None = None
    choices: list[_Choice] = []
    usage: _Usage | None = None


@dataclass(frozen=True)
class LLMCompletion:
    text: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None


class OpenAICompatibleChat:
    """One chat completion per call. The SDK retries connection errors, 408/409/429 and 5xx with
    exponential backoff (``max_retries``); what still fails is raised as an ``LLMError``.

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
    ) -> None:
        self.model = model
        self._json_mode = json_mode
        self._client = openai.AsyncOpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url,
            timeout=timeout_seconds,
            max_retries=max_retries,
            http_client=http_client if http_client is not None else openai.DefaultAioHttpClient(),
        )

    async def complete(self, prompt: str, system_message: str | None, temperature: float) -> LLMCompletion:
        messages: list[dict[str, str]] = []
        if system_message:
            messages.append({"role": "system", "content": system_message})
        messages.append({"role": "user", "content": prompt})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        try:
            # The SDK's request method for the same endpoint (its documented way to send a body as
            # given): ``chat.completions.create`` first walks every parameter through its TypedDict
            # transform, about 2 ms of CPU per call for these four plain fields (benchmarks/README.md).
            # Retries, timeouts and errors are the SDK's; the body comes back as bytes (``ChatReply``).
            raw: bytes = await self._client.post("/chat/completions", cast_to=bytes, body=body)
        except openai.APITimeoutError as exc:
            raise LLMTimeoutError(f"the LLM at {self._client.base_url} did not answer in time") from exc
        except openai.APIConnectionError as exc:
            raise LLMUnavailableError(f"the LLM at {self._client.base_url} is unreachable: {exc}") from exc
        except openai.InternalServerError as exc:
            raise LLMUnavailableError(f"the LLM answered {exc.status_code}: {exc.message}") from exc
        except openai.APIStatusError as exc:
            raise LLMUpstreamError(f"the LLM refused the call ({exc.status_code}): {exc.message}") from exc
        try:
            reply = ChatReply.model_validate_json(raw)
        except ValidationError as exc:
            raise LLMUpstreamError(f"the LLM's reply is not a chat completion: {raw[:200]!r}") from exc
        if not reply.choices:
            raise LLMUpstreamError("the LLM returned no choices")
        text = reply.choices[0].message.content or ""
        usage = reply.usage
        log.info(
            "llm_call",
            model=self.model,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )
        return LLMCompletion(
            text=text,
            model=reply.model or self.model,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
        )

    async def aclose(self) -> None:
        await self._client.close()


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
    )
