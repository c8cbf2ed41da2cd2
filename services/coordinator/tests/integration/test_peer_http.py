"""Distributed-call behaviour of the peer client: timeouts, retries only on transient failures,
typed errors built from the peer's problem detail."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
import respx

from coordinator.domain.exceptions import PeerContractError, PeerResponseError, PeerTimeoutError, PeerUnavailableError
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient, peer_http_client
from service_kit.logging import configure_logging, flush_logs

BASE = "http://research.test"
URL = f"{BASE}/api/v1/research/experts/technical_analyst"
FAST = CallPolicy(
    budget_seconds=2.0,
    connect_timeout_seconds=1.0,
    backoff_initial_seconds=0,
    backoff_max_seconds=0,
    backoff_jitter_seconds=0,
)


def problem(status: int, code: str, detail: str) -> httpx.Response:
    body = {"type": "about:blank", "title": "x", "status": status, "detail": detail, "code": code}
    return httpx.Response(status, json=body, headers={"content-type": "application/problem+json"})


@pytest.fixture
async def peer() -> AsyncIterator[PeerClient]:
    async with httpx.AsyncClient() as client:
        yield PeerClient("research", BASE, client, FAST)


@respx.mock
async def test_503_then_200_is_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(
        side_effect=[problem(503, "service_busy", "busy"), httpx.Response(200, json={"ok": 1})]
    )
    body, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {"symbol": "X"})
    assert body == {"ok": 1}
    assert attempts == 2
    assert route.call_count == 2


@pytest.mark.parametrize("status", [429, 502, 504])
@respx.mock
async def test_other_transient_statuses_are_retried(peer: PeerClient, status: int) -> None:
    route = respx.post(URL).mock(side_effect=[httpx.Response(status), httpx.Response(200, json={})])
    _, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert attempts == 2
    assert route.call_count == 2


@respx.mock
async def test_connection_error_is_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(side_effect=[httpx.ConnectError("refused"), httpx.Response(200, json={})])
    _, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert attempts == 2
    assert route.call_count == 2


@respx.mock
async def test_400_is_not_retried_and_reads_the_problem_detail(peer: PeerClient) -> None:
    route = respx.post(URL).mock(return_value=problem(400, "invalid_symbol", "bad symbol 'X'"))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 1
    assert str(caught.value) == "research 400 invalid_symbol: bad symbol 'X'"
    assert (caught.value.status, caught.value.peer_code, caught.value.attempts) == (400, "invalid_symbol", 1)


@respx.mock
async def test_404_problem_becomes_a_readable_error(peer: PeerClient) -> None:
    respx.post(URL).mock(return_value=problem(404, "symbol_not_found", "no data for XYZ"))
    with pytest.raises(PeerResponseError, match=r"^research 404 symbol_not_found: no data for XYZ$"):
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})


@respx.mock
async def test_the_problems_extension_members_are_kept(peer: PeerClient) -> None:
    body = {
        "type": "about:blank",
        "title": "Unprocessable Entity",
        "status": 422,
        "detail": "fewer than 60 bars public on 2001-01-05",
        "code": "insufficient_history",
        "earliest_usable_date": "2001-12-20",
    }
    respx.post(URL).mock(return_value=httpx.Response(422, json=body))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert (caught.value.status, caught.value.peer_code) == (422, "insufficient_history")
    assert caught.value.extensions == {"earliest_usable_date": "2001-12-20"}
    # the readable error (stored in sessions) keeps its format
    assert str(caught.value) == "research 422 insufficient_history: fewer than 60 bars public on 2001-01-05"


@respx.mock
async def test_500_is_not_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(500, text="Internal Server Error"))
    with pytest.raises(PeerResponseError, match=r"^research 500 http_error: Internal Server Error$"):
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 1


@respx.mock
async def test_at_most_three_attempts_then_the_last_error(peer: PeerClient) -> None:
    route = respx.post(URL).mock(return_value=problem(503, "service_busy", "still busy"))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 3
    assert caught.value.attempts == 3
    assert str(caught.value) == "research 503 service_busy: still busy"


@respx.mock
async def test_connection_refused_every_time_is_unavailable(peer: PeerClient) -> None:
    respx.post(URL).mock(side_effect=httpx.ConnectError("connection refused"))
    with pytest.raises(
        PeerUnavailableError, match=r"^research unreachable: connection failed \(ConnectError\) \(3 attempts\)$"
    ) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert caught.value.attempts == 3


@respx.mock
async def test_the_budget_bounds_the_call() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, json={})

    respx.post(URL).mock(side_effect=slow)
    async with httpx.AsyncClient() as client:
        peer = PeerClient("research", BASE, client, CallPolicy(budget_seconds=0.1))
        with pytest.raises(PeerTimeoutError, match=r"^research timed out after 0.1s \(1 attempt\)$"):
            await peer.post_json("/api/v1/research/experts/technical_analyst", {})


KEY = "sk-test-SECRET-123456"


@respx.mock
async def test_a_peers_words_are_kept_with_keys_masked_and_urls_replaced(peer: PeerClient) -> None:
    detail = f"the LLM at http://llm.internal:8080/v1 said: Incorrect API key provided: {KEY}"
    respx.post(URL).mock(return_value=problem(502, "llm_upstream_error", detail))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert str(caught.value) == (
        "research 502 llm_upstream_error: the LLM at [URL] said: Incorrect API key provided: [REDACTED]"
    )


@respx.mock
async def test_a_reply_that_is_no_problem_is_kept_with_keys_masked(peer: PeerClient) -> None:
    respx.post(URL).mock(return_value=httpx.Response(500, text=f"proxy error; Authorization: Bearer {KEY}"))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert str(caught.value) == "research 500 http_error: proxy error; Authorization: [REDACTED]"


@respx.mock
async def test_an_unreachable_peer_is_named_not_located(peer: PeerClient) -> None:
    respx.post(URL).mock(side_effect=httpx.ConnectError(f"Cannot connect to host {BASE}"))
    respx.get(f"{BASE}/healthz").mock(side_effect=httpx.ConnectError(f"Cannot connect to host {BASE}"))
    with pytest.raises(PeerUnavailableError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    for said in (str(caught.value), await peer.health(1.0)):
        assert "http://" not in said
        assert "research.test" not in said


@respx.mock
async def test_read_timeout_is_not_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(side_effect=httpx.ReadTimeout("read timed out"))
    with pytest.raises(PeerTimeoutError):
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 1


@respx.mock
async def test_non_json_reply_breaks_the_contract(peer: PeerClient) -> None:
    respx.post(URL).mock(return_value=httpx.Response(200, text="<html>"))
    with pytest.raises(PeerContractError, match="non-JSON"):
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})


@respx.mock
async def test_health_reports_ok_or_the_reason(peer: PeerClient) -> None:
    respx.get(f"{BASE}/healthz").mock(side_effect=[httpx.Response(200, json={}), httpx.ConnectError("refused")])
    assert await peer.health(1.0) == "ok"
    assert await peer.health(1.0) == "unreachable: connection failed (ConnectError)"


# ---------------------------------------------------------------- the production client, real sockets


async def _serve(handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]) -> asyncio.Server:
    return await asyncio.start_server(handler, "127.0.0.1", 0)


def _base(server: asyncio.Server) -> str:
    host, port = server.sockets[0].getsockname()[:2]
    return f"http://{host}:{port}"


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    return await reader.readexactly(length)


async def test_the_production_client_posts_json_and_forwards_the_request_id() -> None:
    seen: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _read_request(reader))
        body = b'{"ok": true}'
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()

    server = await _serve(answer)
    async with server, peer_http_client(4) as client:
        peer = PeerClient("research", _base(server), client, FAST)
        assert await peer.post_json("/x", {"symbol": "600519.SH"}) == ({"ok": True}, 1)
    assert seen == [b'{"symbol":"600519.SH"}']


async def test_the_production_client_reports_a_refused_connection_as_unavailable_after_retries() -> None:
    server = await _serve(lambda r, w: asyncio.sleep(0))
    base = _base(server)
    server.close()
    await server.wait_closed()
    async with peer_http_client(4) as client:
        peer = PeerClient("research", base, client, FAST)
        with pytest.raises(PeerUnavailableError) as caught:
            await peer.post_json("/x", {})
    assert str(caught.value) == "research unreachable: connection refused (ConnectionRefusedError) (3 attempts)"
    assert caught.value.attempts == 3


async def test_the_production_client_times_out_a_peer_that_never_answers() -> None:
    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        await asyncio.sleep(10)

    server = await _serve(hang)
    async with server, peer_http_client(4) as client:
        peer = PeerClient("research", _base(server), client, CallPolicy(budget_seconds=0.3))
        with pytest.raises(PeerTimeoutError, match=r"^research timed out after 0.3s \(1 attempt\)$"):
            await peer.post_json("/x", {})


@respx.mock
async def test_a_502_saying_the_llm_refused_the_call_is_not_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(
        return_value=problem(502, "llm_upstream_error", "the LLM refused the call (401): invalid api key")
    )
    with pytest.raises(PeerResponseError, match="llm_upstream_error") as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 1
    assert caught.value.attempts == 1


@respx.mock
async def test_a_502_for_invalid_llm_output_is_retried(peer: PeerClient) -> None:
    route = respx.post(URL).mock(
        side_effect=[problem(502, "llm_output_invalid", "no JSON object"), httpx.Response(200, json={"ok": 1})]
    )
    _, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert (attempts, route.call_count) == (2, 2)


@respx.mock
async def test_a_500_for_invalid_llm_output_is_retried_as_well(peer: PeerClient) -> None:
    """The debate and the judge answer an unparseable model output with 500 (the debate spec's code)."""
    route = respx.post(URL).mock(
        side_effect=[problem(500, "llm_output_invalid", "resolution: not JSON"), httpx.Response(200, json={"ok": 1})]
    )
    _, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert (attempts, route.call_count) == (2, 2)


@respx.mock
async def test_any_other_500_is_final(peer: PeerClient) -> None:
    route = respx.post(URL).mock(return_value=problem(500, "internal_error", "boom"))
    with pytest.raises(PeerResponseError, match="internal_error"):
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == 1


@respx.mock
@pytest.mark.parametrize(
    ("status", "code"), [(503, "llm_unavailable"), (504, "llm_timeout"), (502, "llm_upstream_error")]
)
async def test_an_llm_failure_the_peer_has_already_retried_is_not_retried_again(
    peer: PeerClient, status: int, code: str
) -> None:
    route = respx.post(URL).mock(return_value=problem(status, code, "the LLM ..."))
    with pytest.raises(PeerResponseError, match=code) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert route.call_count == caught.value.attempts == 1


@respx.mock
async def test_a_retry_is_logged_with_the_peer_and_the_problem_code(
    peer: PeerClient, capsys: pytest.CaptureFixture[str]
) -> None:
    respx.post(URL).mock(side_effect=[problem(503, "service_busy", "busy"), httpx.Response(200, json={"ok": 1})])
    configure_logging("INFO", json=True, service="coordinator")
    await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    flush_logs()
    retry = next(json.loads(line) for line in capsys.readouterr().err.splitlines() if "peer_retry" in line)
    assert retry["peer"] == "research"
    assert retry["error"] == "HTTP 503 service_busy"


@respx.mock
async def test_what_the_model_wrote_is_kept_in_the_error_of_an_invalid_llm_output(peer: PeerClient) -> None:
    body = {
        "title": "Bad Gateway",
        "status": 502,
        "detail": "the model output is not a JSON object (Expecting value)",
        "code": "llm_output_invalid",
        "raw_output_excerpt": "I think\n  it is bullish " + "x" * 400,
    }
    respx.post(URL).mock(return_value=httpx.Response(502, json=body))
    with pytest.raises(PeerResponseError) as caught:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    message = str(caught.value)
    assert message.startswith(
        "research 502 llm_output_invalid: the model output is not a JSON object (Expecting value) "
        "(the model wrote: 'I think it is bullish xxx"
    )
    assert message.endswith("x…')")


def _invalid_output(calls: int, tokens: int) -> httpx.Response:
    """llm_output_invalid (asked again) with the ``usage`` the peer's model calls reported."""
    response = problem(500, "llm_output_invalid", "the model's answer did not parse")
    body = json.loads(response.content) | {"usage": {"llm_calls": calls, "input_tokens": tokens, "output_tokens": 1}}
    return httpx.Response(500, json=body, headers={"content-type": "application/problem+json"})


@respx.mock
async def test_a_stage_asked_again_counts_the_calls_of_every_attempt(peer: PeerClient) -> None:
    """Issue 41: the coordinator's resampling after llm_output_invalid made model calls too."""
    answer = {"signal": "BULLISH", "usage": {"llm_calls": 1, "input_tokens": 100, "output_tokens": 5}}
    respx.post(URL).mock(side_effect=[_invalid_output(1, 40), _invalid_output(2, 60), httpx.Response(200, json=answer)])
    body, attempts = await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert attempts == 3
    assert body["usage"] == {"llm_calls": 4, "input_tokens": 200, "output_tokens": 7, "estimated": False}


@respx.mock
async def test_a_stage_that_never_parsed_counts_every_attempts_calls_in_its_failure(peer: PeerClient) -> None:
    respx.post(URL).mock(side_effect=[_invalid_output(1, 40), _invalid_output(1, 50), _invalid_output(1, 60)])
    with pytest.raises(PeerResponseError) as raised:
        await peer.post_json("/api/v1/research/experts/technical_analyst", {})
    assert raised.value.extensions["usage"]["llm_calls"] == 3
    assert raised.value.extensions["usage"]["input_tokens"] == 150
