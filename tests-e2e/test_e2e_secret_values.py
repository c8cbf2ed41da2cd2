"""A configured secret of a shape no rule knows (``gsk_…``, as some providers' keys are) never reaches a log line
or an answer: a real research process at LOG_LEVEL=DEBUG calls an LLM endpoint that quotes the key back, in a
401 and in a 200 whose text is not JSON (``raw_output_excerpt``)."""

from __future__ import annotations

import json
import secrets
import string
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from e2e_processes import ServiceProcess, running_service

pytestmark = pytest.mark.e2e

KEY = "gsk_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(52))
EXPERT = "/api/v1/research/experts/technical_analyst"


class _QuotingLLM(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that quotes the caller's key: ``mode`` says how."""

    mode = "401"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        if self.mode == "401":
            status, body = 401, {"error": {"message": f"denied to {key} (project closed)"}}
        else:
            choice = {"index": 0, "message": {"role": "assistant", "content": f"No JSON today, {key}."}}
            status, body = 200, {"model": "m", "choices": [{**choice, "finish_reason": "stop"}]}
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture(scope="module")
def llm() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _QuotingLLM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.fixture(scope="module")
def research(llm: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    llm_env = {"LLM_BASE_URL": llm, "LLM_API_KEY": KEY, "LLM_MODEL": "fake-model", "LLM_MAX_RETRIES": "0"}
    workdir = tmp_path_factory.mktemp("e2e-secret-values")
    with running_service("research", workdir, LOG_LEVEL="DEBUG", ANALYSIS_ENGINE="llm", **llm_env) as research:
        yield research


@pytest.mark.parametrize("mode", ["401", "not-json"])
def test_a_key_of_an_unknown_shape_is_in_no_answer_and_no_log_line(research: ServiceProcess, mode: str) -> None:
    _QuotingLLM.mode = mode
    answer = httpx.post(f"{research.url}{EXPERT}", json={"symbol": "600519.SH"}, timeout=30)
    expected = {"401": ("llm_upstream_error", 502), "not-json": ("llm_output_invalid", 500)}[mode]
    assert (answer.json()["code"], answer.status_code) == expected
    if mode == "not-json":
        assert "[REDACTED]" in answer.json()["raw_output_excerpt"]
    assert KEY not in answer.text
    event = {"401": "llm_error_answer", "not-json": "request_failed"}[mode]
    deadline = time.monotonic() + 10
    while event not in (log := research.log_path.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)  # lines are written by the service's log thread
    assert event in log  # the endpoint's words were logged (DEBUG), the key masked in them
    assert KEY not in log
    assert KEY[4:20] not in log
