"""OpenTelemetry traces of a service: on when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, off otherwise.

On: the process's tracer provider (``service.name`` = the service) exports every span over OTLP/HTTP in batches
(the SDK reads ``OTEL_EXPORTER_OTLP_ENDPOINT`` and the other ``OTEL_*`` variables itself, the sampler too), and
the app is instrumented: a server span per request (FastAPI, the W3C ``traceparent`` it was sent continued),
a client span per call of a plain httpx client and of a client passed to ``instrument_http_client`` (the
coordinator's peers), a span per SQL statement (SQLAlchemy). Our own spans (the research graph's stages and
experts, each model call: ``service_kit.llm.tracing``) go to the same provider.

Off: no provider is set up, nothing is instrumented, and the spans of our own code are the OpenTelemetry
API's non-recording ones (docs/benchmarks.md measures what that costs). A provider set up by someone else
before the app is created (a test's in-memory exporter) counts as on.

Whose trace context is continued: a request's ``traceparent``/``tracestate`` are read only from a ``service`` key
(the coordinator calling a peer), with ``AUTH_MODE=none``, or from anyone with ``TRUST_INCOMING_TRACE_CONTEXT=true``
(behind a gateway that sets them); any other caller's request starts a trace of its own. A caller's ``baggage`` is
never read, so never forwarded to the peers (``ClientTraceContextFilter``, outside every other middleware).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
from fastapi import FastAPI
from opentelemetry import propagate, trace
from starlette.types import ASGIApp, Receive, Scope, Send

from service_kit.api_keys import KeyRing
from service_kit.settings import ServiceSettings

NOT_TRACED_PATHS = "healthz,readyz,metrics"
"""Probes and scrapes: no span (``OTEL_PYTHON_FASTAPI_EXCLUDED_URLS`` form)."""


def tracing_on() -> bool:
    """Whether this process records spans (an SDK tracer provider is set up)."""
    from opentelemetry.sdk.trace import TracerProvider

    return isinstance(trace.get_tracer_provider(), TracerProvider)


def spans_recorded() -> bool:
    """Whether a tracer provider is set up in this process (cheap: for the code that skips its spans
    altogether when none is, rather than making the API's non-recording ones)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def install_tracing(app: FastAPI, service: str, settings: ServiceSettings, keys: KeyRing | None = None) -> None:
    """Sets up the OTLP exporter when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (once per process), then, if
    this process records spans, instruments ``app``, httpx and SQLAlchemy, and filters the trace context callers
    send (``keys``: the service's key ring with ``AUTH_MODE=api_key``). Nothing is imported or changed when
    tracing is off."""
    if settings.otel_exporter_otlp_endpoint and not spans_recorded():
        _export_over_otlp(service)
    if not spans_recorded() or not tracing_on():
        return
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor

    # No span per ASGI message ("http send", "http receive"): one per request says what they would.
    FastAPIInstrumentor.instrument_app(app, excluded_urls=NOT_TRACED_PATHS, exclude_spans=["receive", "send"])
    trusted = _everyone if settings.trust_incoming_trace_context or keys is None else service_key_caller(keys)
    instrumented = app.build_middleware_stack  # the instrumentation's: its middleware outermost

    def build_middleware_stack() -> ASGIApp:
        return ClientTraceContextFilter(instrumented(), trusted)

    app.build_middleware_stack = build_middleware_stack  # type: ignore[method-assign]
    if not HTTPXClientInstrumentor().is_instrumented_by_opentelemetry:
        HTTPXClientInstrumentor().instrument()
    if not SQLAlchemyInstrumentor().is_instrumented_by_opentelemetry:
        # It declares SQLAlchemy < 2.1; what it hooks (create_engine, the cursor-execute events) 2.1 keeps.
        SQLAlchemyInstrumentor().instrument(skip_dep_check=True)


_TRACE_CONTEXT = frozenset({b"traceparent", b"tracestate"})
_BAGGAGE = frozenset({b"baggage"})


class ClientTraceContextFilter:
    """ASGI middleware: a request's ``baggage`` header is dropped, and its ``traceparent``/``tracestate`` too unless
    ``trusted(scope)``, before the server span is started from them."""

    def __init__(self, app: ASGIApp, trusted: Callable[[Scope], bool]) -> None:
        self.app, self.trusted = app, trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = scope.get("headers") or []
            names = {name for name, _ in headers}
            if names & (_TRACE_CONTEXT | _BAGGAGE):
                dropped = _BAGGAGE if self.trusted(scope) else _TRACE_CONTEXT | _BAGGAGE
                scope = {**scope, "headers": [(n, v) for n, v in headers if n not in dropped]}
        await self.app(scope, receive, send)


def service_key_caller(keys: KeyRing) -> Callable[[Scope], bool]:
    """Whether a request's bearer key is a ``service`` key (the coordinator calling a peer)."""

    def trusted(scope: Scope) -> bool:
        headers = dict(scope.get("headers") or ())
        scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        client = keys.client_for(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        return client is not None and client.is_service

    return trusted


def _everyone(scope: Scope) -> bool:
    return True


def instrument_http_client(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """``client`` with a span per request when tracing is on (the instrumentation of httpx patches httpx's
    own transport only; a client on another one, aiohttp's, is instrumented here)."""
    if spans_recorded() and tracing_on():
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

        HTTPXClientInstrumentor.instrument_client(client)
    return client


def inject_trace_context(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` with the current span's W3C ``traceparent`` (and ``tracestate``) added when a span is
    recording: a peer's spans join the caller's trace whatever transport carries the call."""
    if trace.get_current_span().is_recording():
        propagate.inject(headers)
    return headers


@contextmanager
def untraced() -> Iterator[None]:
    """The instrumentations (httpx, SQLAlchemy) make no span in the block: for work done for several
    requests at once, whose spans would each start a trace of their own."""
    from opentelemetry.instrumentation.utils import suppress_instrumentation

    with suppress_instrumentation():
        yield


def flush_spans() -> None:
    """Exports the spans still buffered (at shutdown: a signalled uvicorn exits without running exit hooks)."""
    if spans_recorded() and tracing_on():
        provider = trace.get_tracer_provider()
        provider.force_flush()  # type: ignore[attr-defined]


def _export_over_otlp(service: str) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
