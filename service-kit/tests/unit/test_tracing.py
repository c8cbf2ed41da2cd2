"""Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (no provider, nothing instrumented, no trace
context forwarded); with it, a service's spans reach the OTLP collector it names, as ``service.name`` the
service, continuing the caller's ``traceparent``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from contract_testkit import recording_spans, tracing_reset_after
from fastapi import APIRouter, FastAPI
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from service_kit.app_factory import create_service_app
from service_kit.llm.tracing import model_call_stage, traced_model_call
from service_kit.request_id import outgoing_headers
from service_kit.settings import ServiceSettings
from service_kit.tracing import flush_spans, tracing_on

CALLER_TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{CALLER_TRACE_ID}-b7ad6b7169203331-01"


def _app(settings: ServiceSettings) -> FastAPI:
    router = APIRouter()

    @router.get("/forwarded")
    async def forwarded() -> dict[str, str]:
        return outgoing_headers()

    return create_service_app(service="svc", title="t", description="d", settings=settings, routers=[router])


async def _get(app: FastAPI, path: str, **headers: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return await client.get(path, headers=headers)


@pytest.fixture
def no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)


@pytest.mark.usefixtures("no_endpoint")
async def test_without_an_otlp_endpoint_nothing_is_traced_or_forwarded() -> None:
    app = _app(ServiceSettings())
    assert ServiceSettings().otel_exporter_otlp_endpoint is None
    assert not tracing_on()
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)  # the API's no-op stands in
    assert not getattr(app, "_is_instrumented_by_opentelemetry", False)
    answer = await _get(app, "/forwarded", traceparent=TRACEPARENT)
    assert set(answer.json()) == {"X-Request-ID"}  # no traceparent sent on


class _Client:
    model = "m"
    base_url = "http://llm.test:8080/v1"

    @traced_model_call
    async def complete(self, prompt: str, system_message: str | None, temperature: float) -> _Completion:
        return _Completion()


class _Completion:
    model = "m-2024"
    prompt_tokens = 12
    completion_tokens = 3


@pytest.mark.usefixtures("no_endpoint")
async def test_a_model_call_span_is_described_by_the_gen_ai_conventions_without_the_prompt() -> None:
    with recording_spans() as exporter:
        with model_call_stage("judge"):
            await _Client().complete("the secret prompt", "system", 0.2)
        (span,) = exporter.get_finished_spans()
    assert span.name == "chat m"
    assert span.kind == trace.SpanKind.CLIENT
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "m",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.agent.name": "judge",
        "server.address": "llm.test",
        "server.port": 8080,
        "gen_ai.response.model": "m-2024",
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
    }
    # Off: the same call makes no span and still answers.
    assert (await _Client().complete("p", None, 0.2)).prompt_tokens == 12


@pytest.mark.usefixtures("no_endpoint")
async def test_with_tracing_off_the_model_calls_tokens_are_counted_by_stage() -> None:
    router = APIRouter()

    @router.get("/call")
    async def call() -> dict[str, str]:
        with model_call_stage("judge"):
            await _Client().complete("p", None, 0.2)
        return {}

    app = create_service_app(service="svc", title="t", description="d", settings=ServiceSettings(), routers=[router])
    await _get(app, "/call")
    await _get(app, "/call")
    metrics = (await _get(app, "/metrics")).text
    assert 'llm_tokens_total{direction="input",model="m-2024",service="svc",stage="judge"} 24.0' in metrics
    assert 'llm_tokens_total{direction="output",model="m-2024",service="svc",stage="judge"} 6.0' in metrics


@pytest.fixture
def collector() -> Iterator[tuple[str, list[bytes]]]:
    """A stand-in OTLP/HTTP collector (the standard library's server, not an app the tracing would
    instrument): the bodies posted to /v1/traces."""
    received: list[bytes] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


async def test_with_an_otlp_endpoint_the_services_spans_reach_the_collector(
    monkeypatch: pytest.MonkeyPatch, collector: tuple[str, list[bytes]]
) -> None:
    endpoint, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    with tracing_reset_after():
        app = _app(ServiceSettings())
        assert tracing_on()
        answer = await _get(app, "/forwarded", traceparent=TRACEPARENT)
        await _get(app, "/healthz")  # probes make no span
        flush_spans()
    forwarded = answer.json()["traceparent"]
    assert forwarded.split("-")[1] == CALLER_TRACE_ID  # the caller's trace goes on to the peers
    exported = ExportTraceServiceRequest()
    for body in received:
        exported.MergeFromString(body)
    (resource_spans,) = exported.resource_spans
    names = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert names["service.name"] == "svc"
    spans = [s for scope in resource_spans.scope_spans for s in scope.spans]
    assert [s.name for s in spans] == ["GET /forwarded"]
    assert spans[0].trace_id.hex() == CALLER_TRACE_ID


CLIENT_KEY, SERVICE_KEY = "sr_client-key-0123456789abcdef", "sr_service-key-0123456789abcdef"
BAGGAGE = "role=admin,client_id=someone-else," + ",".join(f"k{i}=" + "v" * 40 for i in range(90))  # ~4 KB


def _keyed_settings(**overrides: object) -> ServiceSettings:
    from service_kit.api_keys import hash_key

    keys = f"client={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service"
    return ServiceSettings(auth_mode="api_key", api_keys=keys, rate_limits_enabled=False, **overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "trust", "continued"),
    [(CLIENT_KEY, False, False), (SERVICE_KEY, False, True), (CLIENT_KEY, True, True), (None, False, False)],
)
async def test_a_callers_trace_context_is_continued_only_when_trusted_and_its_baggage_never_forwarded(
    key: str | None, trust: bool, continued: bool
) -> None:
    with recording_spans() as exporter:
        app = _app(_keyed_settings(trust_incoming_trace_context=trust))
        headers = {"traceparent": TRACEPARENT, "baggage": BAGGAGE}
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        answer = await _get(app, "/forwarded", **headers)
        spans = exporter.get_finished_spans()
    forwarded = answer.json()
    assert "baggage" not in {k.lower() for k in forwarded}  # never sent on to the peers
    assert (forwarded["traceparent"].split("-")[1] == CALLER_TRACE_ID) is continued
    server = next(s for s in spans if s.kind == trace.SpanKind.SERVER)
    assert (format(server.context.trace_id, "032x") == CALLER_TRACE_ID) is continued
    assert (server.parent is not None) is continued
