"""One research is one trace: the four real services in this process (research, debate and judge each served
on loopback by a thread, the coordinator through ASGI), their LLM engines against the fake OpenAI-compatible
server (a thread too), every span recorded in memory (``contract_testkit.recording_spans``).

Read from the spans: one trace id from the coordinator's request to every peer's request and every model
call; the experts' spans overlap under the experts' stage, then bull ∥ bear, the resolution after both, the
judge after the resolution; the session store's reads (the session read after it) are traced too. The model-call
spans carry the GenAI attributes and the tokens the fake server reported, never the prompt. And /metrics counts
those tokens by service, model and stage, and the stages' durations.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from contract_testkit import recording_spans, serving_in_thread
from e2e_support import ALL_EXPERTS
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from coordinator.main import create_app as create_coordinator
from debate.main import create_app as create_debate
from judge.main import create_app as create_judge
from research.main import create_app as create_research
from service_kit.stack.api_paths import RESEARCH, SESSIONS
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLMClient
from stack_fakes.fake_llm import create_app as create_fake_llm

MODEL = "fake-trace-model"
ADVOCATES = ("bull_advocate", "bear_advocate")
GEN_AI_ATTRIBUTES = {
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.system",
    "gen_ai.request.model",
    "gen_ai.request.temperature",
    "gen_ai.response.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.agent.name",
    "server.address",
    "server.port",
}


@dataclass
class TracedResearch:
    body: dict[str, Any]
    spans: list[ReadableSpan]
    llm_calls: list[dict[str, Any]]
    metrics: dict[str, str]


@pytest.fixture(scope="module")
def traced_research(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TracedResearch]:
    workdir = tmp_path_factory.mktemp("tracing")
    with pytest.MonkeyPatch.context() as env, recording_spans() as exporter:
        env.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
        with serving_in_thread(create_fake_llm()) as llm_port:
            fake = FakeLLMClient(f"http://127.0.0.1:{llm_port}")
            fake.put_script(replies.script())
            for name, value in {
                "LLM_BASE_URL": fake.base_url,
                "LLM_API_KEY": "sk-fake-trace",
                "LLM_MODEL": MODEL,
                "ANALYSIS_ENGINE": "llm",
                "LLM_MAX_RETRIES": "0",
                "REPORT_LANGUAGE": "en",
                "LOG_LEVEL": "WARNING",
                "DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'coordinator.db'}",
            }.items():
                env.setenv(name, value)
            yield from _research_through(exporter, fake, env)


def _research_through(
    exporter: InMemorySpanExporter, fake: FakeLLMClient, env: pytest.MonkeyPatch
) -> Iterator[TracedResearch]:
    with (
        serving_in_thread(create_research()) as research,
        serving_in_thread(create_debate()) as debate,
        serving_in_thread(create_judge()) as judge,
    ):
        peers = {"RESEARCH": research, "DEBATE": debate, "JUDGE": judge}
        for name, port in peers.items():
            env.setenv(f"{name}_SERVICE_URL", f"http://127.0.0.1:{port}")
        coordinator = create_coordinator()
        with serving_in_thread(coordinator) as port:
            answer = httpx.post(
                f"http://127.0.0.1:{port}{RESEARCH}", json={"symbol": "600519.SH", "experts": ALL_EXPERTS}, timeout=60
            )
            assert answer.status_code == 200, answer.text[:2000]
            read = httpx.get(f"http://127.0.0.1:{port}{SESSIONS}/{answer.json()['session_id']}", timeout=10)
            assert read.status_code == 200, read.text[:2000]
            urls = {"coordinator": port, **{name.lower(): p for name, p in peers.items()}}
            metrics = {name: httpx.get(f"http://127.0.0.1:{p}/metrics").text for name, p in urls.items()}
        yield TracedResearch(answer.json(), list(exporter.get_finished_spans()), fake.calls(), metrics)


def _named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def _one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    found = _named(spans, name)
    assert len(found) == 1, f"{name}: {[s.name for s in spans]}"
    return found[0]


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    by_id = {s.context.span_id: s for s in spans}
    names = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def _model_calls(spans: list[ReadableSpan]) -> dict[str, list[ReadableSpan]]:
    calls: dict[str, list[ReadableSpan]] = {}
    for span in _named(spans, f"chat {MODEL}"):
        calls.setdefault(str(span.attributes.get("gen_ai.agent.name")), []).append(span)
    return calls


def _start(span: ReadableSpan) -> int:
    assert span.start_time is not None
    return span.start_time


def _end(span: ReadableSpan) -> int:
    assert span.end_time is not None
    return span.end_time


def test_one_research_is_one_trace_from_the_coordinator_to_every_model_call(traced_research: TracedResearch) -> None:
    spans = traced_research.spans
    assert traced_research.body["overall_status"] == "completed"
    request = _one(spans, f"POST {RESEARCH}")
    trace_id = request.context.trace_id
    peer_requests = [s for s in spans if s.name.startswith("POST /api/v1/") and s is not request]
    assert sorted(s.name for s in peer_requests) == sorted(
        ["POST /api/v1/research/experts/{expert_type}"] * 5 + ["POST /api/v1/debate/run", "POST /api/v1/judge/verdict"]
    )
    calls = [s for group in _model_calls(spans).values() for s in group]
    assert len(calls) == len(traced_research.llm_calls) == 9
    for span in [*peer_requests, *calls]:
        assert span.context.trace_id == trace_id, span.name
        assert f"POST {RESEARCH}" in _ancestors(span, spans), span.name
    ours = [s for s in spans if s.name == "research" or s.name.startswith(("stage ", "expert "))]
    assert len(ours) == 1 + 3 + 5
    assert {s.context.trace_id for s in ours} == {trace_id}
    # The session store's reads are traced too (SQLAlchemy's spans, "<verb> <database>"): the session read after it.
    session_read = _one(spans, f"GET {SESSIONS}/{{session_id}}")
    statements = [s for s in spans if s.name.startswith("SELECT ")]
    assert any(s.context.trace_id == session_read.context.trace_id for s in statements)


def test_the_span_tree_shows_the_experts_in_parallel_then_the_debate_then_the_judge(
    traced_research: TracedResearch,
) -> None:
    spans = traced_research.spans
    experts_stage = _one(spans, "stage experts")
    assert _ancestors(experts_stage, spans)[0] == "research"
    experts = [_one(spans, f"expert {e}") for e in ALL_EXPERTS]
    assert {_ancestors(s, spans)[0] for s in experts} == {"stage experts"}
    assert max(map(_start, experts)) < min(map(_end, experts))  # all five were running at once
    calls = _model_calls(spans)
    for expert in ALL_EXPERTS:
        (call,) = calls[expert]
        assert f"expert {expert}" in _ancestors(call, spans)  # the research service's call joined its expert

    debate, verdict = _one(spans, "stage debate"), _one(spans, "stage verdict")
    assert _end(experts_stage) <= _start(debate)
    assert _end(debate) <= _start(verdict)
    (bull,), (bear,), (resolution,), (judge,) = (calls[r] for r in (*ADVOCATES, "resolution", "judge"))
    assert max(_start(bull), _start(bear)) < min(_end(bull), _end(bear))  # bull ∥ bear
    assert max(_end(bull), _end(bear)) <= _start(resolution)
    assert _end(resolution) <= _start(judge)
    assert all("stage debate" in _ancestors(s, spans) for s in (bull, bear, resolution))
    assert "stage verdict" in _ancestors(judge, spans)


def test_model_call_spans_carry_the_gen_ai_attributes_and_the_reported_tokens_never_the_prompt(
    traced_research: TracedResearch,
) -> None:
    calls = [s for group in _model_calls(traced_research.spans).values() for s in group]
    for span in calls:
        attributes = dict(span.attributes or {})
        assert set(attributes) <= GEN_AI_ATTRIBUTES, set(attributes) - GEN_AI_ATTRIBUTES
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == attributes["gen_ai.system"] == "openai"
        assert attributes["gen_ai.request.model"] == MODEL
        assert attributes["server.address"] == "127.0.0.1"
    reported = traced_research.llm_calls
    assert sum(int(s.attributes["gen_ai.usage.input_tokens"]) for s in calls) == sum(  # type: ignore[index, arg-type]
        c["prompt_tokens"] for c in reported
    )
    assert sum(int(s.attributes["gen_ai.usage.output_tokens"]) for s in calls) == sum(  # type: ignore[index, arg-type]
        c["completion_tokens"] for c in reported
    )


def _samples(metrics_text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(metrics_text)
        for sample in family.samples
        if sample.name == name
    }


def test_metrics_count_the_tokens_by_service_model_and_stage_and_time_the_stages(
    traced_research: TracedResearch,
) -> None:
    metrics = traced_research.metrics
    calls = _model_calls(traced_research.spans)
    for service, stages in {"research": ALL_EXPERTS, "debate": [*ADVOCATES, "resolution"], "judge": ["judge"]}.items():
        tokens = _samples(metrics[service], "llm_tokens_total")
        for stage in stages:
            (span,) = calls[stage]
            for direction in ("input", "output"):
                labels = (("direction", direction), ("model", MODEL), ("service", service), ("stage", stage))
                assert tokens[labels] == span.attributes[f"gen_ai.usage.{direction}_tokens"], (service, stage)  # type: ignore[index]
    assert _samples(metrics["coordinator"], "llm_tokens_total") == {}  # the coordinator calls no model
    durations = _samples(metrics["coordinator"], "stage_duration_seconds_count")
    for stage in ["experts", "debate", "verdict", *(f"expert:{e}" for e in ALL_EXPERTS)]:
        assert durations[(("service", "coordinator"), ("stage", stage))] == 1, stage
