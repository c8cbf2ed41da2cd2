"""Shared helpers of the end-to-end tests (paths, HTTP assertions, metrics, waiting, a one-reply LLM endpoint, the
repository's scripts as modules)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
from contract_testkit import DEBATE_FIELDS, VERDICT_FIELDS

from service_kit.stack.api_paths import DEBATE_RUN, EXPERT_PATH, JUDGE_VERDICT, RESEARCH, SESSIONS

__all__ = ["DEBATE_RUN", "EXPERT_PATH", "JUDGE_VERDICT", "RESEARCH", "SESSIONS"]


ALL_EXPERTS = [
    "technical_analyst",
    "financial_auditor",
    "valuation_modeler",
    "macro_intelligence",
    "catalyst_detective",
]
DEBATE_KEYS = DEBATE_FIELDS
VERDICT_KEYS = VERDICT_FIELDS
RESPONSE_KEYS = {
    "session_id",
    "symbol",
    "analysis_date",
    "language",  # issue 51: the one language of the research's texts
    "overall_status",
    "expert_results",
    "debate_outcome",
    "verdict",
    "retry_count",
    "usage",  # issue 41: every stage's model calls and tokens, beside the spec's fields
}
EXPERT_HANDLER = "/api/v1/research/experts/{expert_type}"


def retry_path(session_id: str) -> str:
    return f"{RESEARCH}/{session_id}/retry"


def expect(response: httpx.Response, status: int) -> Any:
    """The JSON body, after checking the status (the body is in the failure message)."""
    assert response.status_code == status, f"{response.request.method} {response.request.url}: {response.text[:2000]}"
    return response.json()


def post_research(client: httpx.Client, status: int = 200, **body: Any) -> dict[str, Any]:
    """POST a research (``body`` as keyword arguments) and expect ``status``; returns the JSON body."""
    result: dict[str, Any] = expect(client.post(RESEARCH, json=body), status)
    return result


def expect_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    body: dict[str, Any] = expect(response, status)
    assert response.headers["content-type"].startswith("application/problem+json"), response.headers
    assert body["code"] == code, body
    assert body["status"] == status
    assert {"type", "title", "detail"} <= body.keys()
    return body


def is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def statuses(body: dict[str, Any]) -> dict[str, str]:
    return {expert: item["status"] for expert, item in body["expert_results"].items()}


def errors(body: dict[str, Any]) -> dict[str, str]:
    return {e: item["error"] for e, item in body["expert_results"].items() if item["status"] == "failed"}


def request_count(metrics_text: str, handler: str, status_class: str) -> float:
    """``http_requests_total`` of one handler and status class (``2xx``, ``4xx``...) in a /metrics page."""
    total = 0.0
    for line in metrics_text.splitlines():
        if not line.startswith("http_requests_total{"):
            continue
        labels_text, _, value = line.rpartition("} ")
        labels = dict(re.findall(r'(\w+)="([^"]*)"', labels_text))
        if labels.get("handler") == handler and labels.get("status") == status_class:
            total += float(value)
    return total


def expert_requests(research_url: str) -> dict[str, float]:
    """How many expert requests the research service has answered, by status class."""
    text = httpx.get(f"{research_url}/metrics", timeout=10).text
    return {cls: request_count(text, EXPERT_HANDLER, cls) for cls in ("2xx", "4xx", "5xx")}


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class OneReplyChatHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint in the test's own process whose every answer is ``reply(api_key)``:
    subclasses say what it answers (the scripted fake server cannot quote the key or name a 10 MB model)."""

    def reply(self, api_key: str) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        status, body = self.reply(self.headers.get("authorization", "").removeprefix("Bearer "))
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *_args: object) -> None:
        pass


def chat_completion_body(content: str, model: str = "fake-model") -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {"model": model, "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


@contextlib.contextmanager
def serving_chat(handler: type[OneReplyChatHandler]) -> Iterator[str]:
    """``handler`` on a free loopback port, in a thread; yields its ``LLM_BASE_URL``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """A script of the repository (``scripts/*.py``) loaded from its file as a module (named ``name``, default
    ``script_<stem>``): no folder goes on ``sys.path``."""
    spec = importlib.util.spec_from_file_location(name or f"script_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
