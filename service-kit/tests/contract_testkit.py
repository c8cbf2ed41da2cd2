"""Test helpers every package's tests share (``service-kit/tests`` is on pytest's ``pythonpath``):
an OpenAI-compatible endpoint behind ``httpx2.MockTransport``, the bulk fields the expert-result
projection drops, a bulk answer checked against the per-item answers, a run of one import-linter contract,
the traceability-table checks, an app served on loopback by a thread and the process's spans recorded in
memory. Tests only; nothing in ``src/`` imports this."""

from __future__ import annotations

import functools
import json
import re
import socket
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
from opentelemetry import trace
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once
from starlette.types import ASGIApp

from service_kit.llm.client import OpenAICompatibleChat
from service_kit.server import GuardedHttpProtocol

REPO_ROOT = Path(__file__).resolve().parents[2]
LLM_TEST_BASE_URL = "http://llm.test/v1"
LLMHandler = Callable[[httpx2.Request], httpx2.Response]

# --- OpenAI-compatible endpoint (openai 3 talks httpx2) -------------------------------------------


def completion_body(
    content: str,
    model: str = "test-model",
    *,
    usage: tuple[int, int] | None = None,
    completion_id: str = "chatcmpl-1",
    finish_reason: str = "stop",
) -> dict[str, Any]:
    """A ``chat.completion`` JSON body with one choice; ``usage`` is (prompt_tokens, completion_tokens);
    ``finish_reason="length"`` for an answer cut off at its length limit."""
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
    }
    if usage is not None:
        prompt_tokens, completion_tokens = usage
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return body


def chat_completion(
    content: str,
    model: str = "test-model",
    *,
    usage: tuple[int, int] | None = None,
    completion_id: str = "chatcmpl-1",
    finish_reason: str = "stop",
) -> httpx2.Response:
    body = completion_body(content, model, usage=usage, completion_id=completion_id, finish_reason=finish_reason)
    return httpx2.Response(200, json=body)


def mock_llm_http_client(handler: LLMHandler) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))


def mock_chat(
    handler: LLMHandler,
    *,
    model: str = "test-model",
    api_key: str = "test-key",
    timeout_seconds: float = 5,
    max_retries: int = 0,
    **kwargs: Any,
) -> OpenAICompatibleChat:
    """``OpenAICompatibleChat`` at ``LLM_TEST_BASE_URL`` whose every request is answered by ``handler``."""
    return OpenAICompatibleChat(
        model=model,
        base_url=LLM_TEST_BASE_URL,
        api_key=api_key,
        timeout_seconds=timeout_seconds,
        max_retries=max_retries,
        http_client=mock_llm_http_client(handler),
        **kwargs,
    )


class RecordingLLMEndpoint:
    """An OpenAI-compatible endpoint behind httpx2.MockTransport: answers with ``respond`` and keeps the
    JSON request bodies it received. A service's fakes may subclass it to change ``default_model``."""

    default_model = "test-model"

    def __init__(self, respond: LLMHandler) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        return self.respond(request)

    def client(self) -> httpx2.AsyncClient:
        return mock_llm_http_client(self.handler)

    def chat(self, model: str | None = None) -> OpenAICompatibleChat:
        return mock_chat(self.handler, model=model or self.default_model)

    def messages(self, index: int = -1) -> dict[str, str]:
        return {m["role"]: m["content"] for m in self.requests[index]["messages"]}


# --- expert results ------------------------------------------------------------------------------

BULK_FIELDS = frozenset(
    {
        "input",
        "output",
        "user_prompt",
        "raw_llm_output",
        "technical_indicators",
        "financial_indicators",
        "valuation_indicators",
        "macro_indicators",
        "catalyst_context",
        "information_sources",
        "dimension_analyses",
        "key_technical_levels",
        "estimated_intrinsic_value_range",
    }
)
"""What the expert-result → ExpertSummary projection filters out (the debate spec's mapping table)."""

# --- debate outcome and verdict (the spec's fields, besides ``symbol`` and ``engine``) -------------

DEBATE_FIELDS = frozenset(
    {
        "direction",
        "confidence",
        "bull_case",
        "bear_case",
        "risk_matrix",
        "key_disagreements",
        "conflict_resolution",
    }
)
VERDICT_FIELDS = frozenset(
    {
        "action",
        "position_percent",
        "confidence",
        "entry_strategy",
        "stop_loss",
        "take_profit",
        "time_horizon",
        "risk_warnings",
        "reasoning",
    }
)

# --- import-linter contracts (the root pyproject.toml's [tool.importlinter], each with an ``id``) --------


PYPROJECT = REPO_ROOT / "pyproject.toml"


@functools.cache
def import_contract_ids() -> frozenset[str]:
    contracts = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    return frozenset(c["id"] for c in contracts if "id" in c)


@functools.cache
def _lint_imports(*contract_ids: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with this interpreter's import-linter, limited to ``contract_ids`` (all when none)."""
    limit = [arg for contract_id in contract_ids for arg in ("--contract", contract_id)]
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            *("--config", str(PYPROJECT), "--no-cache", "--no-logo", *limit),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_import_contract_kept(contract_id: str) -> None:
    """import-linter keeps the root pyproject.toml's contract ``contract_id``. The spec's scenarios about what a
    module may import are traced to tests calling this: import-linter reads the imports, the tests need not
    read our source. One run of every contract serves all calls while all are kept."""
    assert contract_id in import_contract_ids(), contract_id
    if _lint_imports().returncode == 0:
        return
    result = _lint_imports(contract_id)
    assert result.returncode == 0, f"{contract_id}:\n{result.stdout}{result.stderr}"


# --- traceability tables (docs/traceability/<spec>.md: | Scenario | test node id |) ---------------

EXTRA_PREFIX = "extra: "


def traceability_rows(table: Path, *, extras_after: str | None = None) -> list[tuple[str, str]]:
    """The (scenario, node id) rows of a table; rows after the ``extras_after`` heading (tests beyond the
    spec's scenarios) come back with their scenario prefixed by ``EXTRA_PREFIX``."""
    text = table.read_text(encoding="utf-8")
    parts = text.split(extras_after) if extras_after else [text]
    rows = []
    for part, section in enumerate(parts):
        for line in section.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 2 and "::" in cells[1]:
                rows.append((cells[0] if part == 0 else f"{EXTRA_PREFIX}{cells[0]}", cells[1]))
    return rows


def spec_scenarios(rows: list[tuple[str, str]]) -> set[str]:
    return {scenario for scenario, _ in rows if not scenario.startswith(EXTRA_PREFIX)}


def assert_node_ids_exist(rows: list[tuple[str, str]], repo: Path = REPO_ROOT) -> None:
    """Every node id (``path::test_name``, relative to the repository) names a test function that exists."""
    assert rows
    for scenario, node_id in rows:
        path, _, name = node_id.partition("::")
        source = (repo / path).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {re.escape(name)}\(", source, re.MULTILINE), (scenario, node_id)


# --- Servers and spans -----------------------------------------------------------------------------


@contextmanager
def serving_in_thread(app: ASGIApp, **config: Any) -> Iterator[int]:
    """``app`` under uvicorn with the guarded protocol, in a thread (its own event loop, its lifespan run),
    on a free loopback port (yielded)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = {"log_level": "warning", "server_header": False, **config}
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http=GuardedHttpProtocol, **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(5)


@contextmanager
def recording_spans() -> Iterator[InMemorySpanExporter]:
    """While the block runs the process records its spans in memory (the exporter yielded): apps created in
    the block are traced as with ``OTEL_EXPORTER_OTLP_ENDPOINT``. Afterwards: ``tracing_reset_after``."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with tracing_reset_after():
        _set_tracer_provider(provider)
        yield exporter


@contextmanager
def tracing_reset_after() -> Iterator[None]:
    """The block may set up the process's tracer provider; afterwards the process is as before it: no
    provider (the one set is shut down), httpx and SQLAlchemy not instrumented."""
    try:
        yield
    finally:
        provider = trace.get_tracer_provider()
        for instrumentor in (HTTPXClientInstrumentor(), SQLAlchemyInstrumentor()):
            if instrumentor.is_instrumented_by_opentelemetry:
                instrumentor.uninstrument()
        _set_tracer_provider(None)
        if isinstance(provider, TracerProvider):
            provider.shutdown()


def _set_tracer_provider(provider: TracerProvider | None) -> None:
    """The API lets a process set its tracer provider once; a test sets one and takes it back (what
    opentelemetry-test-utils' ``reset_trace_globals`` does)."""
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]
    if provider is not None:
        trace.set_tracer_provider(provider)


# --- bulk endpoints ------------------------------------------------------------------------------


def assert_answered_as_singles(items: list[dict[str, Any]], singles: list[Any]) -> None:
    """Each item of a bulk answer is its per-item answer (an ``httpx`` response): the result of a 200, else the
    problem detail (the request id apart)."""
    assert len(items) == len(singles)
    for item, single in zip(items, singles, strict=True):
        if single.status_code == 200:
            assert (item["result"], item["problem"]) == (single.json(), None)
        else:
            problem = {k: v for k, v in single.json().items() if k != "request_id"}
            assert item["result"] is None
            assert {k: v for k, v in item["problem"].items() if k != "request_id"} == problem
