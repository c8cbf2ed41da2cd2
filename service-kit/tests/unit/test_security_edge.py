"""The security edge every service shares: API keys (hashes only, a key file re-read on change, the admin
command), per-client rate limits (in memory, and shared through Redis by two replicas), a request body's
deadline, and the server protocol's deadline on request heads (slowloris)."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from contract_testkit import serving_in_thread
from fastapi import FastAPI

from service_kit.api_keys import KeyRing, hash_key, new_key, parse_entry
from service_kit.body_limit import RequestBodyLimitMiddleware
from service_kit.keys_cli import main as keys_main
from service_kit.rate_limits import (
    STORE_TIMEOUT_SECONDS,
    ClientRateLimits,
    RateLimitMiddleware,
    storage_uri,
)
from service_kit.server_limits import server_limits
from service_kit.settings import ServiceSettings

# --- API keys ---------------------------------------------------------------------------------------------


def test_only_the_hash_is_configured_and_the_scopes_are_read() -> None:
    key = new_key()
    ring = KeyRing.parse(f"alice={hash_key(key)}, ops={hash_key('sr_x')}:admin+research")
    alice = ring.client_for(key)
    assert alice is not None
    assert (alice.client_id, alice.scopes) == ("alice", frozenset({"research"}))
    ops = ring.client_for("sr_x")
    assert ops is not None
    assert ops.is_admin
    assert ring.client_for("sr_unknown") is None
    assert key not in repr(ring.__dict__)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("alice", "client_id=sha256hex"),
        ("alice=abc", "64 hexadecimal"),
        (f"alice={'0' * 64}:root", "unknown scope"),
        (f"al ice={'0' * 64}", "client_id"),
        (f"local={'0' * 64}", "reserved"),
        (f"LOCAL={'0' * 64}:admin", "reserved"),
    ],
)
def test_a_malformed_entry_is_refused_naming_the_problem(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_entry(entry)


def test_api_key_mode_without_any_key_fails_at_start() -> None:
    with pytest.raises(ValueError, match="needs at least one key"):
        ServiceSettings(auth_mode="api_key")


def test_the_admin_command_creates_lists_and_revokes_and_a_revoked_key_stops_working(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys"
    assert keys_main(["--file", str(keys), "create", "alice"]) == 0
    alice_key = capsys.readouterr().out.strip()
    assert keys_main(["--file", str(keys), "create", "ops", "--scope", "admin"]) == 0
    capsys.readouterr()
    assert alice_key not in keys.read_text()
    assert keys.stat().st_mode & 0o077 == 0
    ring = KeyRing([], keys)
    assert ring.client_for(alice_key) is not None

    assert keys_main(["--file", str(keys), "list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["alice\tresearch", "ops\tadmin"]
    assert keys_main(["--file", str(keys), "revoke", "alice"]) == 0
    assert ring.client_for(alice_key) is None  # the file changed: read again, no restart
    assert keys_main(["--file", str(keys), "revoke", "alice"]) == 1


def test_without_a_file_the_command_prints_the_entry_for_api_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert keys_main(["create", "coordinator", "--scope", "service"]) == 0
    captured = capsys.readouterr()
    key = captured.out.strip()
    entry = captured.err.split("API_KEYS entry (add it, comma-separated): ")[1].split()[0]
    assert entry == f"coordinator={hash_key(key)}:service"


# --- rate limits ------------------------------------------------------------------------------------------


async def test_limits_are_per_client_and_say_when_to_retry() -> None:
    limits = ClientRateLimits.from_uri(storage_uri(None), writes="2/minute", reads="100/minute", daily_quota=0)
    assert await limits.check("alice", write=True, research=False) is None
    assert await limits.check("alice", write=True, research=False) is None
    refusal = await limits.check("alice", write=True, research=False)
    assert refusal is not None
    assert refusal.code == "rate_limited"
    assert 1 <= refusal.retry_after_seconds <= 60
    assert await limits.check("bob", write=True, research=False) is None
    assert await limits.check("alice", write=False, research=False) is None


def _redis_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379")
async def test_two_replicas_share_their_counters_through_redis() -> None:
    uri = storage_uri("redis://127.0.0.1:6379/15")
    client = f"client-{uuid.uuid4().hex}"
    one, two = (ClientRateLimits.from_uri(uri, writes="3/minute", reads="100/minute", daily_quota=0) for _ in range(2))
    answers = [await replica.check(client, write=True, research=False) for replica in (one, two, one, two)]
    assert answers[:3] == [None, None, None]
    assert answers[3] is not None
    assert answers[3].code == "rate_limited"


async def test_an_unreachable_counter_store_does_not_take_the_service_down() -> None:
    app = FastAPI()

    @app.post("/api/v1/x")
    async def x() -> dict[str, bool]:
        return {"ok": True}

    broken = ClientRateLimits.from_uri(
        "async+redis://127.0.0.1:1/0", writes="1/minute", reads="1/minute", daily_quota=0
    )
    guarded = RateLimitMiddleware(app, broken, quota_path=None)

    async def with_client(scope, receive, send):  # type: ignore[no-untyped-def]
        from service_kit.api_keys import LOCAL_CLIENT

        scope.setdefault("state", {})["client"] = LOCAL_CLIENT
        await guarded(scope, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=with_client), base_url="http://t") as http:
        answers = [(await http.post("/api/v1/x")).status_code for _ in range(3)]
    assert answers == [200, 200, 200]


# --- slow clients ------------------------------------------------------------------------------------------


async def test_a_body_not_received_in_time_is_a_408() -> None:
    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        raise AssertionError("the application must not run")

    sent: list[dict[str, object]] = []

    async def trickle() -> dict[str, object]:
        await asyncio.sleep(10)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):  # type: ignore[no-untyped-def]
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/x", "headers": [(b"content-length", b"10")]}
    await RequestBodyLimitMiddleware(app, max_bytes=100, timeout_seconds=0.05)(scope, trickle, send)
    assert sent[0]["status"] == 408
    assert b"request_timeout" in sent[1]["body"]  # type: ignore[operator]


def _health_app() -> FastAPI:
    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


@pytest.fixture
def guarded_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setenv("HEADER_READ_TIMEOUT_SECONDS", "0.3")
    server_limits.cache_clear()
    with serving_in_thread(_health_app()) as port:
        yield port
    server_limits.cache_clear()


def _read_all(sock: socket.socket) -> bytes:
    sock.settimeout(3)
    chunks = []
    while chunk := sock.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_connection_that_never_finishes_its_request_head_gets_408_and_is_closed(guarded_server: int) -> None:
    silent = socket.create_connection(("127.0.0.1", guarded_server))
    slow = socket.create_connection(("127.0.0.1", guarded_server))
    slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")  # the head never ends
    for sock in (silent, slow):
        answer = _read_all(sock)  # ends at the server's close; a connection left open times the read out
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b"request_timeout" in answer
        sock.close()


def test_a_prompt_client_is_served_and_kept_alive_past_the_head_deadline(guarded_server: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{guarded_server}") as http:
        first = http.get("/healthz")
        time.sleep(0.5)  # beyond the head deadline, within keep-alive
        second = http.get("/healthz")
    assert (first.status_code, second.status_code) == (200, 200)
    assert "server" not in first.headers


def test_slow_clients_do_not_stop_the_server_answering(guarded_server: int) -> None:
    stalled = [socket.create_connection(("127.0.0.1", guarded_server)) for _ in range(50)]
    try:
        for sock in stalled:
            sock.sendall(b"POST /healthz HTTP/1.1\r\n")
        assert httpx.get(f"http://127.0.0.1:{guarded_server}/healthz", timeout=2).status_code == 200
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize("line", [70_000, 40_000, 32_800])
def test_a_head_over_the_limit_in_one_read_is_431(guarded_server: int, line: int) -> None:
    """The whole head in one read (the parser sees its end before any size check could run between reads)."""
    head = b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * line + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", guarded_server)) as sock:
        sock.sendall(head)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    assert b"request_head_too_large" in answer


def test_a_head_just_under_the_limit_is_served(guarded_server: int) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Big: " + b"a" * 30_000 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", guarded_server)) as sock:
        sock.sendall(head)
        assert _read_all(sock).startswith(b"HTTP/1.1 200 ")


# --- who a request is for -----------------------------------------------------------------------------------


async def test_only_a_service_key_may_name_the_client_it_calls_for() -> None:
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    from service_kit.authentication import AuthenticationMiddleware, client_of

    async def whoami(scope, receive, send):  # type: ignore[no-untyped-def]
        client = client_of(Request(scope))
        await JSONResponse({"client": client.client_id, "for": client.audit_id})(scope, receive, send)

    ring = KeyRing.parse(f"alice={hash_key('sr_alice')},coordinator={hash_key('sr_coord')}:service")
    app = AuthenticationMiddleware(whoami, ring, accepted_scopes=("research", "service"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
        forged = await http.get("/api/v1/x", headers={"Authorization": "Bearer sr_alice", "X-Client-Id": "bob"})
        relayed = await http.get("/api/v1/x", headers={"Authorization": "Bearer sr_coord", "X-Client-Id": "bob"})
    assert forged.json() == {"client": "alice", "for": "alice"}
    assert relayed.json() == {"client": "coordinator", "for": "bob"}


def test_a_connection_answered_before_its_body_arrived_is_closed(guarded_server: int) -> None:
    with socket.create_connection(("127.0.0.1", guarded_server)) as sock:
        sock.sendall(b"POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\nx")  # 999 never come
        answer = _read_all(sock)  # ends at the server's close; a connection left open times the read out
    assert answer.startswith(b"HTTP/1.1 405 ")


async def test_a_counter_store_that_never_answers_is_given_up_on_quickly() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    app = FastAPI()

    @app.get("/api/v1/x")
    async def x() -> dict[str, bool]:
        return {"ok": True}

    hung = ClientRateLimits.from_uri(
        f"async+redis://127.0.0.1:{port}/0", writes="1/minute", reads="1/minute", daily_quota=0
    )
    guarded = RateLimitMiddleware(app, hung, quota_path=None)

    async def with_client(scope, receive, send):  # type: ignore[no-untyped-def]
        from service_kit.api_keys import LOCAL_CLIENT

        scope.setdefault("state", {})["client"] = LOCAL_CLIENT
        await guarded(scope, receive, send)

    started = time.monotonic()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=with_client), base_url="http://t") as http:
        answer = await http.get("/api/v1/x")
    server.close()
    assert answer.status_code == 200
    assert time.monotonic() - started < STORE_TIMEOUT_SECONDS + 2.0


def test_a_key_file_with_a_bad_line_still_drops_the_keys_no_longer_in_it(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text(f"carol={hash_key('sr_carol')}\ndave={hash_key('sr_dave')}\n")
    ring = KeyRing([], keys)
    assert ring.client_for("sr_carol") is not None
    time.sleep(0.01)
    keys.write_text(f"dave={hash_key('sr_dave')}\neve=not-a-hash\n")
    assert ring.client_for("sr_carol") is None
    assert ring.client_for("sr_dave") is not None


def test_beyond_the_concurrency_limit_the_server_answers_a_problem() -> None:
    with serving_in_thread(_health_app(), limit_concurrency=2) as port:
        holders = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:
            time.sleep(0.1)
            answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=3)
        finally:
            for sock in holders:
                sock.close()
    assert answer.status_code == 503
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.json()["code"] == "server_busy"


def test_the_admin_command_refuses_to_create_a_key_named_local(capsys: pytest.CaptureFixture[str]) -> None:
    assert keys_main(["create", "local"]) == 2
    assert "reserved" in capsys.readouterr().err
