"""CPU time per research of the tracing code with tracing off (no tracer provider), in one process: what a
research runs of it (the research's trace with five experts and two stages, seven trace contexts offered to
the peers' headers, nine model calls through the traced client, forty log lines through the trace-id
processor) against the same loop without it, alternating, ``time.process_time``.

    uv run --no-sync python -m benchmarks.tracing_cpu [--researches 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from contextlib import AbstractContextManager, nullcontext

from coordinator.infrastructure.orchestration.research_trace import ResearchTrace
from service_kit.llm.tracing import model_call_stage, traced_model_call
from service_kit.logging import add_trace_ids
from service_kit.tracing import inject_trace_context, spans_recorded

EXPERTS, STAGES, MODEL_CALLS, LOG_LINES = 5, ("debate", "verdict"), 9, 40


class _Completion:
    model = "m"
    prompt_tokens = 1
    completion_tokens = 1


class _Bare:
    model = "m"
    base_url = "http://llm.test/v1"

    async def complete(self, prompt: str, system_message: str | None, temperature: float) -> _Completion:
        return _Completion()


class _Traced(_Bare):
    complete = traced_model_call(_Bare.complete)


async def _research(traced: bool) -> None:
    client = _Traced() if traced else _Bare()
    research = ResearchTrace("600519.SH") if traced else None

    def within(span: AbstractContextManager[None] | None) -> AbstractContextManager[None] | nullcontext[None]:
        return span if span is not None else nullcontext()

    for expert in range(EXPERTS):
        with within(research.expert(f"e{expert}") if research else None):
            _ = inject_trace_context({}) if traced else {}
    if research:
        research.experts_gathered()
    for stage in STAGES:
        with within(research.stage(stage) if research else None):
            _ = inject_trace_context({}) if traced else {}
    if research:
        research.end()
    for _call in range(MODEL_CALLS):
        with within(model_call_stage("judge") if traced else None):
            await client.complete("p", "s", 0.2)
    for _line in range(LOG_LINES):
        _ = add_trace_ids(None, "info", {"event": "x"}) if traced else {"event": "x"}


async def _measure(researches: int) -> tuple[float, float]:
    for _warm in range(200):
        await _research(True)
        await _research(False)
    totals = {True: 0.0, False: 0.0}
    for _round in range(researches):
        for traced in (True, False):
            started = time.process_time()
            await _research(traced)
            totals[traced] += time.process_time() - started
    return totals[True] / researches * 1e6, totals[False] / researches * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--researches", type=int, default=3000)
    args = parser.parse_args()
    assert not spans_recorded(), "measures tracing off: no tracer provider"
    with_code, without = asyncio.run(_measure(args.researches))
    print(f"with the tracing code {with_code:.1f} µs, without {without:.1f} µs: {with_code - without:+.1f} µs CPU")


if __name__ == "__main__":
    main()
