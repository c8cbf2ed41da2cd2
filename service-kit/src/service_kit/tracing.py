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
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from fastapi import FastAPI
from opentelemetry import propagate, trace

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


def install_tracing(app: FastAPI, service: str, settings: ServiceSettings) -> None:
    """Sets up the OTLP exporter when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (once per process), then, if
    this process records spans, instruments ``app``, httpx and SQLAlchemy. Nothing is imported or changed
    when tracing is off."""
    if settings.otel_exporter_otlp_endpoint and not spans_recorded():
        _export_over_otlp(service)
    if not spans_recorded() or not tracing_on():
        return
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor

    # No span per ASGI message ("http send", "http receive"): one per request says what they would.
    FastAPIInstrumentor.instrument_app(app, excluded_urls=NOT_TRACED_PATHS, exclude_spans=["receive", "send"])
    if not HTTPXClientInstrumentor().is_instrumented_by_opentelemetry:
        HTTPXClientInstrumentor().instrument()
    if not SQLAlchemyInstrumentor().is_instrumented_by_opentelemetry:
        # It declares SQLAlchemy < 2.1; what it hooks (create_engine, the cursor-execute events) 2.1 keeps.
        SQLAlchemyInstrumentor().instrument(skip_dep_check=True)


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
