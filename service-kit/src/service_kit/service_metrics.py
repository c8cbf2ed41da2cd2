"""The service's own Prometheus metrics, beside the HTTP ones of /metrics (``observability``):

- ``llm_tokens_total{service, model, stage, direction}``: tokens of the model calls, as the endpoint reported
  them (``direction`` ``input`` or ``output``; ``stage``: the role that called, an expert, ``bull_advocate``,
  ``judge``...), counted by ``service_kit.llm.tracing``;
- ``stage_duration_seconds{service, stage}``: how long each stage of a research took (the coordinator's
  ``experts``, ``expert:<name>``, ``debate``, ``verdict``);
- ``llm_calls_waiting{service, model}``: model calls waiting for their turn under the model-call limits
  (``service_kit.llm.call_limits``), and ``llm_call_wait_seconds{service, model}``: how long each call waited.

Each app has its own (its registry: several apps in one process count apart); code serving a request reaches
its app's through ``current_metrics()``, which ``MetricsContextMiddleware`` sets for the request (and the tasks
it starts). Outside a request nothing is counted.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware

STAGE_SECONDS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
"""From a rules-engine stage (tens of ms) to a slow model's (minutes)."""
WAIT_SECONDS_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""From a free turn (well under a millisecond) to a minute's wait for the requests-per-minute window."""


@dataclass(frozen=True)
class ServiceMetrics:
    service: str
    tokens: Counter
    stage_seconds: Histogram
    calls_waiting: Gauge
    wait_seconds: Histogram

    @classmethod
    def registered(cls, service: str, registry: CollectorRegistry) -> ServiceMetrics:
        tokens = Counter(
            "llm_tokens",
            "Tokens of the model calls, as the LLM endpoint reported them.",
            ["service", "model", "stage", "direction"],
            registry=registry,
        )
        stage_seconds = Histogram(
            "stage_duration_seconds",
            "Duration of each stage of a research.",
            ["service", "stage"],
            buckets=STAGE_SECONDS_BUCKETS,
            registry=registry,
        )
        calls_waiting = Gauge(
            "llm_calls_waiting",
            "Model calls waiting for their turn under the model-call limits.",
            ["service", "model"],
            registry=registry,
        )
        wait_seconds = Histogram(
            "llm_call_wait_seconds",
            "How long a model call waited for its turn under the model-call limits.",
            ["service", "model"],
            buckets=WAIT_SECONDS_BUCKETS,
            registry=registry,
        )
        return cls(service, tokens, stage_seconds, calls_waiting, wait_seconds)

    def count_tokens(self, model: str, stage: str, input_tokens: int | None, output_tokens: int | None) -> None:
        for direction, tokens in (("input", input_tokens), ("output", output_tokens)):
            if tokens:
                self.tokens.labels(self.service, model, stage, direction).inc(tokens)

    def observe_stage(self, stage: str, seconds: float) -> None:
        self.stage_seconds.labels(self.service, stage).observe(seconds)

    def count_waiting(self, model: str, change: int) -> None:
        self.calls_waiting.labels(self.service, model).inc(change)

    def observe_wait(self, model: str, seconds: float) -> None:
        self.wait_seconds.labels(self.service, model).observe(seconds)


_current: ContextVar[ServiceMetrics | None] = ContextVar("service_metrics", default=None)


def current_metrics() -> ServiceMetrics | None:
    """The metrics of the app serving the current request, None outside a request."""
    return _current.get()


class MetricsContextMiddleware(HttpMiddleware):
    """Makes ``metrics`` the current ones while a request is served."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        super().__init__(app)
        self._metrics = metrics

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _current.set(self._metrics)
        try:
            await self.app(scope, receive, send)
        finally:
            _current.reset(token)
