"""A cancelled peer call aborts its HTTP request: the production client (httpx on aiohttp's pool) closes the
connection at once, so the peer hears its caller go (``service_kit.disconnect``) and stops the model calls; the
next call opens a fresh connection."""

from __future__ import annotations

import asyncio
import time

import pytest

from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient, peer_http_client


async def _read_request(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    await reader.readexactly(length)


async def test_cancelling_a_peer_call_closes_its_connection_at_once() -> None:
    arrived, closed = asyncio.Event(), asyncio.Event()
    connections: list[int] = []

    async def hold_then_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(len(connections) + 1)
        await _read_request(reader)
        if len(connections) == 1:  # the first call is held until its client hangs up
            arrived.set()
            if await reader.read() == b"":
                closed.set()
            return
        body = b'{"ok": true}'
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 12\r\n\r\n" + body)
        await writer.drain()

    server = await asyncio.start_server(hold_then_answer, "127.0.0.1", 0)
    host, port = server.sockets[0].getsockname()[:2]
    async with server, peer_http_client(4) as client:
        peer = PeerClient("debate", f"http://{host}:{port}", client, CallPolicy(budget_seconds=30.0))
        call = asyncio.create_task(peer.post_json("/api/v1/debate/run", {"symbol": "600519.SH"}))
        await asyncio.wait_for(arrived.wait(), 5)

        cancelled_at = time.monotonic()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.wait_for(closed.wait(), 5)

        assert time.monotonic() - cancelled_at < 1.0
        assert await peer.post_json("/api/v1/debate/run", {}) == ({"ok": True}, 1)
        assert connections == [1, 2]  # the aborted connection was not put back in the pool
