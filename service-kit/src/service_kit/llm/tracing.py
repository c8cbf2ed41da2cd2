"""A span per model call, named and described by the OpenTelemetry GenAI semantic conventions, and its tokens
counted in the service's metrics (``llm_tokens_total``).

The span (``chat <model>``, kind CLIENT) carries ``gen_ai.operation.name``, ``gen_ai.provider.name`` and
``gen_ai.system``, ``gen_ai.request.model``, ``gen_ai.request.temperature``, ``gen_ai.response.model``,
``gen_ai.usage.input_tokens`` / ``output_tokens`` (when the endpoint reports them), ``gen_ai.agent.name``
(the stage: ``model_call_stage``) and ``server.address`` / ``server.port``; a failed call, ``error.type``.
Never the prompt or the answer. With tracing off no span is made (the tokens are counted still).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Concatenate, ParamSpec, Protocol, TypeVar
from urllib.parse import urlsplit

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from service_kit.service_metrics import current_metrics
from service_kit.tracing import spans_recorded

PROVIDER = "openai"
"""The API the calls speak (any endpoint of LLM_BASE_URL): ``gen_ai.provider.name``'s value for it."""
UNKNOWN_STAGE = "unknown"

_stage: ContextVar[str | None] = ContextVar("model_call_stage", default=None)


@contextmanager
def model_call_stage(stage: str) -> Iterator[None]:
    """The model calls made in the block are the ``stage``'s (an expert, ``bull_advocate``, ``judge``): the
    span's ``gen_ai.agent.name`` and the token counter's ``stage``."""
    token = _stage.set(stage)
    try:
        yield
    finally:
        _stage.reset(token)


class ChatClient(Protocol):
    model: str
    base_url: str | None


class Completion(Protocol):
    @property
    def model(self) -> str: ...
    @property
    def prompt_tokens(self) -> int | None: ...
    @property
    def completion_tokens(self) -> int | None: ...


C = TypeVar("C", bound=ChatClient)
R = TypeVar("R", bound=Completion)
P = ParamSpec("P")
TEMPERATURE_ARGUMENT = 2
"""``complete(prompt, system_message, temperature, ...)``: where the temperature is when passed by position."""


def traced_model_call(complete: Callable[Concatenate[C, P], Awaitable[R]]) -> Callable[Concatenate[C, P], Awaitable[R]]:
    """Decorates a client's ``complete(prompt, system_message, temperature, ...)``: the call in a GenAI span,
    its reported tokens counted by stage."""

    @wraps(complete)
    async def traced(client: C, /, *args: P.args, **kwargs: P.kwargs) -> R:
        stage = _stage.get()
        if not spans_recorded():  # tracing off: no span at all, not even a non-recording one
            completion = await complete(client, *args, **kwargs)
            _count_tokens(completion, stage)
            return completion
        tracer = trace.get_tracer(__name__)
        with tracer.start_as_current_span(
            f"chat {client.model}", kind=SpanKind.CLIENT, record_exception=False, set_status_on_exception=False
        ) as span:
            if span.is_recording():
                _describe_request(span, client, _temperature(args, kwargs), stage)
            try:
                completion = await complete(client, *args, **kwargs)
            except Exception as exc:
                span.set_attribute("error.type", type(exc).__name__)
                span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
                raise
            if span.is_recording():
                _describe_response(span, completion)
        _count_tokens(completion, stage)
        return completion

    return traced


def _count_tokens(completion: Completion, stage: str | None) -> None:
    metrics = current_metrics()
    if metrics is not None:
        metrics.count_tokens(
            completion.model, stage or UNKNOWN_STAGE, completion.prompt_tokens, completion.completion_tokens
        )


def _temperature(args: tuple[object, ...], kwargs: dict[str, object]) -> object:
    return args[TEMPERATURE_ARGUMENT] if len(args) > TEMPERATURE_ARGUMENT else kwargs.get("temperature")


def _describe_request(span: trace.Span, client: ChatClient, temperature: object, stage: str | None) -> None:
    span.set_attributes(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER,
            "gen_ai.system": PROVIDER,
            "gen_ai.request.model": client.model,
        }
    )
    if isinstance(temperature, int | float):
        span.set_attribute("gen_ai.request.temperature", float(temperature))
    if stage is not None:
        span.set_attribute("gen_ai.agent.name", stage)
    if client.base_url:
        url = urlsplit(client.base_url)
        if url.hostname:
            span.set_attribute("server.address", url.hostname)
        if url.port:
            span.set_attribute("server.port", url.port)


def _describe_response(span: trace.Span, completion: Completion) -> None:
    span.set_attribute("gen_ai.response.model", completion.model)
    if completion.prompt_tokens is not None:
        span.set_attribute("gen_ai.usage.input_tokens", completion.prompt_tokens)
    if completion.completion_tokens is not None:
        span.set_attribute("gen_ai.usage.output_tokens", completion.completion_tokens)
