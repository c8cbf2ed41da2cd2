"""A cap on request bodies, so a service called directly refuses what the gateway would (``413``), and a
deadline on receiving them (``408 request_timeout``), so a client sending slowly cannot hold a request open.

A body announced by ``Content-Length`` is judged by that header before anything is read. The body is read
whole, within ``timeout_seconds``, before the application sees it, then handed on as one message. The bulk
routes (paths ending in ``/bulk``, ``shared_contracts.bulk``) have their own cap, ``bulk_max_bytes``."""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware
from service_kit.problems import problem_response

BULK_SUFFIX = "/bulk"


class RequestBodyLimitMiddleware(HttpMiddleware):
    def __init__(
        self, app: ASGIApp, max_bytes: int, timeout_seconds: float = 30.0, bulk_max_bytes: int | None = None
    ) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes
        self.timeout_seconds = timeout_seconds
        self.bulk_max_bytes = bulk_max_bytes or max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.bulk_max_bytes if str(scope.get("path", "")).endswith(BULK_SUFFIX) else self.max_bytes
        announced = _content_length(scope)
        if announced is not None and announced > limit:
            await self._refuse(scope, receive, send, f"{announced} bytes", limit)
            return
        if announced is None and not _chunked(scope):  # no body (a GET): nothing to wait for
            await self.app(scope, receive, send)
            return
        try:
            async with asyncio.timeout(self.timeout_seconds):
                first = await self._read_body(receive, limit)
        except TimeoutError:
            detail = f"The request body was not received within {self.timeout_seconds:g} s."
            await problem_response(408, "request_timeout", detail)(scope, receive, send)
            return
        if first is None:
            await self._refuse(scope, receive, send, f"more than {limit} bytes", limit)
            return
        await self.app(scope, _replay([first], receive), send)

    async def _read_body(self, receive: Receive, limit: int) -> Message | None:
        """The whole body as one message (or the disconnect that ended it); None beyond ``limit`` bytes."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the application see it
                return message
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, size: str, limit: int) -> None:
        detail = f"The request body ({size}) is larger than this service accepts ({limit} bytes)."
        await problem_response(413, "request_too_large", detail)(scope, receive, send)


def _chunked(scope: Scope) -> bool:
    return any(name == b"transfer-encoding" for name, _ in scope.get("headers", ()))


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replaying_receive() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replaying_receive
