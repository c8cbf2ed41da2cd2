"""Floods from a client without a key, against a real service process (the judge, AUTH_MODE=api_key): a request
head flood is answered 431 and the process's memory stays flat; one address holding 530 idle connections leaves
a second address (127.0.0.2) served. The server protocol's own answers are problem details."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import ServiceProcess, running_service

pytestmark = pytest.mark.e2e

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    keys = f"alice={hash_key(new_key())}"
    workdir = tmp_path_factory.mktemp("e2e-floods")
    with running_service("judge", workdir, AUTH_MODE="api_key", API_KEYS=keys, RATE_LIMITS_ENABLED="false") as judge:
        yield judge


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _answer(sock: socket.socket) -> bytes:
    sock.settimeout(5)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except (ConnectionResetError, TimeoutError):
        pass
    return b"".join(chunks)


def _flood_head(port: int, answers: list[bytes]) -> None:
    """150 header lines of 1 MiB each, sent in 64 KiB pieces until the server stops reading."""
    sock = socket.create_connection(("127.0.0.1", port))
    piece = b"a" * 65536
    try:
        sock.sendall(b"GET /api/v1/judge/verdict HTTP/1.1\r\nHost: judge\r\n")
        for line in range(150):
            sock.sendall(f"X-Flood-{line}: ".encode())
            for _ in range(MiB // len(piece)):
                sock.sendall(piece)
            sock.sendall(b"\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    answers.append(_answer(sock))
    sock.close()


def test_a_head_flood_is_answered_431_and_memory_stays_flat(judge: ServiceProcess) -> None:
    assert judge.process is not None
    before = _rss_bytes(judge.process.pid)
    answers: list[bytes] = []
    floods = [threading.Thread(target=_flood_head, args=(judge.port, answers)) for _ in range(4)]
    peak = before
    for flood in floods:
        flood.start()
    while any(flood.is_alive() for flood in floods):
        peak = max(peak, _rss_bytes(judge.process.pid))
        time.sleep(0.02)
    peak = max(peak, _rss_bytes(judge.process.pid))

    assert len(answers) == 4
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"content-type: application/problem+json" in head
        assert b"x-content-type-options: nosniff" in head
        assert json.loads(body)["code"] == "request_head_too_large"
    # The attack pass measured 183 MB -> 780 MB; each connection now holds at most 32 KiB and one read.
    assert peak - before < 20 * MiB, f"RSS grew by {(peak - before) / MiB:.1f} MiB"
    assert httpx.get(f"{judge.url}/healthz", timeout=5).status_code == 200


def test_too_many_header_lines_are_431(judge: ServiceProcess) -> None:
    with socket.create_connection(("127.0.0.1", judge.port)) as sock:
        lines = b"".join(b"X-L%d: v\r\n" % i for i in range(101))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: judge\r\n" + lines + b"\r\n")
        answer = _answer(sock)
    assert answer.startswith(b"HTTP/1.1 431 ")
    with socket.create_connection(("127.0.0.1", judge.port)) as sock:
        lines = b"".join(b"X-L%d: v\r\n" % i for i in range(90))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: judge\r\nConnection: close\r\n" + lines + b"\r\n")
        assert _answer(sock).startswith(b"HTTP/1.1 200 ")


def test_idle_connections_from_one_address_leave_another_address_served(judge: ServiceProcess) -> None:
    idle = []
    try:
        for _ in range(530):
            idle.append(socket.create_connection(("127.0.0.1", judge.port)))
        time.sleep(0.3)  # the server has accepted what it will
        # The address's excess connections were answered 503 and closed; the first ones are still open.
        beyond = idle[-1]
        answer = _answer(beyond)
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:200]
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "too_many_connections"

        second = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=5)
        with second:
            served = [second.get(f"{judge.url}/healthz").status_code for _ in range(20)]
            refused = second.post(f"{judge.url}/api/v1/judge/verdict", json={})
        assert served == [200] * 20
        assert refused.status_code == 401  # reached the app: keyless, but not shut out
    finally:
        for sock in idle:
            sock.close()


def test_the_servers_own_refusal_of_a_malformed_request_is_a_problem(judge: ServiceProcess) -> None:
    with socket.create_connection(("127.0.0.1", judge.port)) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = _answer(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/problem+json" in head
    assert b"x-frame-options: DENY" in head
    assert json.loads(body)["code"] == "bad_request"
