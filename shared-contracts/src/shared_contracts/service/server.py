"""uvicorn's HTTP protocol with a deadline on request headers, for every service:

    uvicorn --factory judge.main:create_app --http shared_contracts.service.server:GuardedHttpProtocol ...

A connection that has not sent a whole request head within ``HEADER_READ_TIMEOUT_SECONDS`` (default 10) of
opening, or of starting its next request, is answered ``408`` (``request_timeout``) and closed, so clients that
open connections and send slowly or nothing cannot hold the server's connections (slowloris). A connection
answered before its request body arrived (a 401, 403, 413 or 408 sent early) is closed after the answer: the
rest of that body is never read. The body has its
own deadline in ``RequestBodyLimitMiddleware``; idle keep-alive connections close after uvicorn's
``--timeout-keep-alive``."""

from __future__ import annotations

import asyncio
import json
import os
from functools import cache

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

DEFAULT_HEADER_READ_TIMEOUT_SECONDS = 10.0
UVICORN_OPTIONS = (
    *("--http", "shared_contracts.service.server:GuardedHttpProtocol"),
    "--no-server-header",
    *("--limit-concurrency", "512"),
    *("--timeout-keep-alive", "5"),
)
"""The options every service runs under (Procfile, Dockerfile and the Python launchers spell the same): this
protocol, no ``server`` banner, 503 beyond 512 open connections (or requests in progress), idle keep-alive
closed after 5 s."""


@cache
def header_read_timeout_seconds() -> float:
    """``HEADER_READ_TIMEOUT_SECONDS`` from the environment (read once per process; a bad value is the default,
    the service's settings refuse to start with it)."""
    try:
        value = float(os.environ.get("HEADER_READ_TIMEOUT_SECONDS", DEFAULT_HEADER_READ_TIMEOUT_SECONDS))
    except ValueError:
        return DEFAULT_HEADER_READ_TIMEOUT_SECONDS
    return value if value > 0 else DEFAULT_HEADER_READ_TIMEOUT_SECONDS


def _timeout_response() -> bytes:
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Request Timeout",
            "status": 408,
            "detail": "The request head was not received in time.",
            "code": "request_timeout",
        }
    ).encode()
    head = (
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/problem+json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` that answers 408 and closes a connection whose request head is late."""

    _header_deadline: asyncio.TimerHandle | None = None
    _request_received = True

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_received = False
        self._arm_header_deadline()

    def on_message_complete(self) -> None:
        self._request_received = True
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._request_received and not self.transport.is_closing():
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(header_read_timeout_seconds(), self._header_too_late)

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _header_too_late(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request in progress (pipelined head pending): the app's answer comes first
        self.transport.write(_timeout_response())
        self.transport.close()
