"""A configured secret of a shape no rule knows (``gsk_…``, as some providers' keys are) never reaches a log line
or an answer: a real research process at LOG_LEVEL=DEBUG calls an LLM endpoint that quotes the key back, in a
401 and in a 200 whose text is not JSON (``raw_output_excerpt``)."""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import OneReplyChatHandler, chat_completion_body, serving_chat

from service_kit.stack.launcher import ServiceProcess, running_service

pytestmark = pytest.mark.e2e

KEY = "gsk_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(52))
EXPERT = "/api/v1/research/experts/technical_analyst"


class _QuotingLLM(OneReplyChatHandler):
    """An OpenAI-compatible endpoint that quotes the caller's key: ``mode`` says how."""

    mode = "401"

    def reply(self, api_key: str) -> tuple[int, dict[str, Any]]:
        if self.mode == "401":
            return 401, {"error": {"message": f"denied to {api_key} (project closed)"}}
        return 200, chat_completion_body(f"No JSON today, {api_key}.")


@pytest.fixture(scope="module")
def research(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    workdir = tmp_path_factory.mktemp("e2e-secret-values")
    with serving_chat(_QuotingLLM) as llm:
        llm_env = {"LLM_BASE_URL": llm, "LLM_API_KEY": KEY, "LLM_MODEL": "fake-model", "LLM_MAX_RETRIES": "0"}
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
