"""The spans of one research run and the durations of its stages (``stage_duration_seconds``).

    research                      (the run, under the request's span)
    ├── stage experts             (first expert started → the aggregator's update)
    │   ├── expert fundamental    (each expert node, its peer call under it: research's spans join here)
    │   └── expert technical ...
    ├── stage debate              (the debate node's peer call)
    └── stage verdict             (the judge node's peer call)

The spans are not made current across the run's stream (an async generator: the context it would set is the
consumer's); each node makes its own span current while it calls its peer, so the call carries its
``traceparent``. With tracing off no span is made (the stage span: the API's invalid one, never exported); the
durations are recorded either way.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from opentelemetry import trace
from opentelemetry.context import Context

from service_kit.service_metrics import current_metrics
from service_kit.tracing import spans_recorded

EXPERTS_STAGE = "experts"


class ResearchTrace:
    def __init__(self, symbol: str) -> None:
        """Starts the run's span, a child of the current one (the request's)."""
        self._traced = spans_recorded()
        self._tracer = trace.get_tracer(__name__)
        self._run = (
            self._tracer.start_span("research", attributes={"research.symbol": symbol})
            if self._traced
            else trace.INVALID_SPAN
        )
        self._run_context = trace.set_span_in_context(self._run)
        self._experts: trace.Span | None = None
        self._experts_context: Context | None = None
        self._experts_started = 0.0

    @contextmanager
    def expert(self, expert: str) -> Iterator[None]:
        """One expert's span (current in the block), under the experts' stage (started by the first expert)."""
        if self._experts_context is None:
            self._experts = (
                self._tracer.start_span(f"stage {EXPERTS_STAGE}", context=self._run_context)
                if self._traced
                else trace.INVALID_SPAN
            )
            self._experts_context = trace.set_span_in_context(self._experts)
            self._experts_started = time.perf_counter()
        with _timed(f"expert:{expert}"), self._span(f"expert {expert}", self._experts_context):
            yield

    def experts_gathered(self) -> None:
        """Ends the experts' stage (the aggregator has run)."""
        if self._experts is not None:
            _observe(EXPERTS_STAGE, time.perf_counter() - self._experts_started)
            self._experts.end()
            self._experts = None

    @contextmanager
    def stage(self, stage: str) -> Iterator[None]:
        """The debate's or the verdict's span (current in the block), under the run's."""
        with _timed(stage), self._span(f"stage {stage}", self._run_context):
            yield

    def _span(self, name: str, parent: Context) -> AbstractContextManager[object]:
        """A span current in the block; with tracing off, none at all."""
        return self._tracer.start_as_current_span(name, context=parent) if self._traced else nullcontext()

    def end(self) -> None:
        if self._experts is not None:
            self._experts.end()
        self._run.end()


@contextmanager
def _timed(stage: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        _observe(stage, time.perf_counter() - started)


def _observe(stage: str, seconds: float) -> None:
    metrics = current_metrics()
    if metrics is not None:
        metrics.observe_stage(stage, seconds)
