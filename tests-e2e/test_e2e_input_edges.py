"""The last input edges of issue 53, against real processes (the four services, rules engines, ``AUTH_MODE=api_key``):
a ``Last-Event-ID`` that is no event number is a 400 problem with nothing logged at ERROR; a 900 KB invalid symbol
is echoed back at most 200 characters long by every service; a 70,000-byte header line sent in one write is 431,
not served. (The fence forgeries are in ``test_e2e_prompt_fences.py``, the browser's ``EventSource`` in
``test_event_source_browser.py``.)"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import Stack, running_stack

pytestmark = pytest.mark.e2e

CLIENT_KEY, SERVICE_KEY = new_key(), new_key()
HUGE = "A" * 900_000


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    keys = f"alice={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service"
    common = {"AUTH_MODE": "api_key", "API_KEYS": keys, "RATE_LIMITS_ENABLED": "false"}
    per_service = {"coordinator": {"SERVICE_API_KEY": SERVICE_KEY}}
    with running_stack(tmp_path_factory.mktemp("input-edges"), common_env=common, per_service_env=per_service) as s:
        yield s


def _auth(key: str = CLIENT_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _errors_logged(stack: Stack, service: str) -> list[str]:
    lines = stack[service].log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if '"level": "error"' in line]


def test_a_last_event_id_that_is_no_event_number_is_a_400_problem_and_no_error(stack: Stack) -> None:
    coordinator = stack["coordinator"].url
    body = {"symbol": "600519.SH", "experts": ["technical_analyst"], "analysis_date": "2024-06-28"}
    session_id = (
        httpx.post(f"{coordinator}/api/v1/coordinator/research", json=body, headers=_auth(), timeout=120)
        .raise_for_status()
        .json()["session_id"]
    )
    events = f"{coordinator}/api/v1/coordinator/sessions/{session_id}/events"
    errors_before = len(_errors_logged(stack, "coordinator"))
    answers = [
        httpx.get(events, headers=[(b"Authorization", f"Bearer {CLIENT_KEY}".encode()), (b"Last-Event-ID", raw)])
        for raw in (b"9" * 5000, "\u00b2".encode("latin-1"), "\u0663".encode())
    ]
    for answer in answers:
        assert answer.status_code == 400, answer.text[:200]
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["code"] == "invalid_request"
    assert len(_errors_logged(stack, "coordinator")) == errors_before


@pytest.mark.parametrize(
    ("service", "path", "body"),
    [
        ("coordinator", "/api/v1/coordinator/research", {"symbol": HUGE, "experts": ["technical_analyst"]}),
        ("coordinator", "/api/v1/coordinator/batches", {"symbols": [HUGE], "analysis_date": "2024-06-28"}),
        ("research", "/api/v1/research/experts/technical_analyst", {"symbol": HUGE}),
        ("debate", "/api/v1/debate/run", {"symbol": HUGE, "expert_results": {"a": {"signal": "BULLISH"}}}),
    ],
)
def test_a_900_kb_invalid_symbol_is_echoed_at_most_200_characters(
    stack: Stack, service: str, path: str, body: dict[str, object]
) -> None:
    answer = httpx.post(f"{stack[service].url}{path}", json=body, headers=_auth(), timeout=60)
    assert answer.status_code == 400, answer.text[:200]
    assert len(answer.content) < 1_500
    assert "A" * 201 not in answer.text


def test_a_70000_byte_header_line_sent_at_once_is_431(stack: Stack) -> None:
    head = b"GET /api/v1/coordinator/sessions HTTP/1.1\r\nHost: c\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", stack["coordinator"].port)) as sock:
        sock.sendall(head)
        sock.settimeout(5)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:120]  # not served: no 401 for the missing key
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "request_head_too_large"
