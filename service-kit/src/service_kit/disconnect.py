"""Work stops when its caller goes: a request whose client closes the connection before the answer has started has
its handler cancelled, and with it the model calls the handler awaits (the ``openai`` SDK's request is aborted), so
a peer does not go on spending tokens on an answer nobody will read.

``CancelOnDisconnectMiddleware`` is the only reader of the server's ``receive``: it hands the request's messages on
to the application and, once the body has been read, keeps listening for ``http.disconnect`` (reads, ``GET``,
``HEAD`` and ``OPTIONS``, start no model work and pass straight through). Once the answer has started (a stream, or
background work after it) a disconnect is only passed on, as the server would. The abandoned request is answered
``499`` (the server drops it, the client is gone) so that the request metrics count it as the client's doing, not
as a server error, and a line ``request_abandoned`` is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import anyio
import structlog
from starlette.types import Message, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware

log = structlog.get_logger(__name__)

CLIENT_CLOSED_REQUEST = 499
"""The status recorded for a request whose client went away before its answer (nginx's)."""
_DISCONNECT: Message = {"type": "http.disconnect"}
_READS = frozenset({"GET", "HEAD", "OPTIONS"})


class CancelOnDisconnectMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") in _READS:  # model work is asked for with a POST; a read is not worth a listener
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        exchange = _Exchange(receive, send)
        with anyio.CancelScope() as work:
            listening = asyncio.create_task(exchange.listen(work))
            try:
                await self.app(scope, exchange.receive, exchange.send)
            finally:
                listening.cancel()
        if work.cancelled_caught and not exchange.answering:
            log.info(
                "request_abandoned",
                method=scope.get("method"),
                path=scope.get("path"),
                after_ms=round((time.monotonic() - started) * 1000.0, 1),
            )
            with contextlib.suppress(Exception):  # nobody reads it: the server drops it
                await send({"type": "http.response.start", "status": CLIENT_CLOSED_REQUEST, "headers": []})
                await send({"type": "http.response.body", "body": b""})


class _Exchange:
    """The server's ``receive`` read by one listener; the application's ``receive`` and ``send`` around it."""

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive = receive
        self._send = send
        self._messages: asyncio.Queue[Message] = asyncio.Queue()
        self._gone = False
        self.answering = False

    async def listen(self, work: anyio.CancelScope) -> None:
        """Read the request's messages as they come; at the client's disconnect, cancel ``work`` unless the
        answer has started."""
        while True:
            message = await self._receive()
            self._messages.put_nowait(message)
            if message["type"] == "http.disconnect":
                self._gone = True
                if not self.answering:
                    work.cancel()
                return

    async def receive(self) -> Message:
        if self._gone and self._messages.empty():
            return _DISCONNECT
        return await self._messages.get()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.answering = True
        await self._send(message)
