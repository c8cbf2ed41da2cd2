"""uvicorn's HTTP protocol with limits on what a connection may hold, for every service:

    uvicorn --factory judge.main:create_app --http service_kit.server:GuardedHttpProtocol ...

- A connection that has not sent a whole request head within ``HEADER_READ_TIMEOUT_SECONDS`` (default 10) of
  opening, or of starting its next request, is answered ``408`` (``request_timeout``) and closed (slowloris).
- A request head larger than ``MAX_REQUEST_HEAD_BYTES`` (default 32 KiB) or with more than
  ``MAX_REQUEST_HEADER_LINES`` header lines (default 100) is answered ``431`` (``request_head_too_large``) and
  the connection closed: at most that much (plus one read) is held per connection while its head arrives. The
  size is checked between reads and again as the parser hands over the target and each header, so a head that
  arrives whole in one read is refused too.
- One client address may hold at most ``MAX_CONNECTIONS_PER_CLIENT`` open connections (default 256, half of the
  512 of ``--limit-concurrency``): a further one is answered ``503`` (``too_many_connections``) and closed, so
  one address cannot take every slot. Proxies the server believes (``--proxy-headers`` with
  ``FORWARDED_ALLOW_IPS``, never ``*``) carry many clients and are not capped.
- A connection answered before its request body arrived (a 401, 403, 413 or 408 sent early) is closed after the
  answer: the rest of that body is never read.
- The server's own answers (a malformed request, beyond ``--limit-concurrency``) are problem details with the
  security headers every answer carries, as the app's are.

The body has its own deadline in ``RequestBodyLimitMiddleware``; idle keep-alive connections close after
uvicorn's ``--timeout-keep-alive``."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service_kit.server_answers import problem_app, raw_problem
from service_kit.server_limits import ServerLimits, server_limits

UVICORN_OPTIONS = (
    *("--http", "service_kit.server:GuardedHttpProtocol"),
    "--no-server-header",
    "--no-proxy-headers",
    *("--limit-concurrency", "512"),
    *("--timeout-keep-alive", "5"),
)
"""The options every service runs under on this machine (Procfile and the Python launchers spell the same; the
image adds ``--proxy-headers`` for its gateway): this protocol, no ``server`` banner, no forwarded addresses
believed, 503 beyond 512 open connections (or requests in progress), idle keep-alive closed after 5 s."""

_BUSY = problem_app(503, "server_busy", "The server is at its connection limit; retry shortly.")


class _HeadTooLarge(Exception):
    """Raised from the parser's callbacks: the head has more lines or bytes than allowed."""


class GuardedHttpProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` with the limits of the module's docstring."""

    _header_deadline: asyncio.TimerHandle | None = None
    _request_received = True
    _reading_head = True
    _head_bytes = 0
    _head_parsed = 0
    _header_lines = 0
    _head_too_large = False

    @property
    def _limits(self) -> ServerLimits:
        return server_limits()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._over_address_cap():
            detail = "This address has too many open connections; close some, then retry."
            self.transport.write(raw_problem(503, "too_many_connections", detail, {"retry-after": "5"}))
            self.transport.close()
            return
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        if self._head_too_large:
            return
        if self._reading_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._reading_head and self._head_bytes > self._limits.max_head_bytes and not self.transport.is_closing():
            self._refuse_head()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_received = False
        self._head_parsed = 0
        self._arm_header_deadline()

    def on_url(self, url: bytes) -> None:
        self._count_parsed(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_lines += 1
        if self._header_lines > self._limits.max_header_lines:
            self._head_too_large = True
            raise _HeadTooLarge
        self._count_parsed(len(name) + len(value) + 4)  # "name: value\r\n"
        super().on_header(name, value)

    def _count_parsed(self, size: int) -> None:
        """The head as the parser hands it over, counted whatever the reads were: a head that arrives whole in one
        read ends before ``data_received`` could compare its size."""
        self._head_parsed += size
        if self._head_parsed > self._limits.max_head_bytes:
            self._head_too_large = True
            raise _HeadTooLarge

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        self._reading_head = False
        self._head_bytes = self._header_lines = 0
        limit = self.limit_concurrency
        if limit is None or (len(self.connections) < limit and len(self.tasks) < limit):
            super().on_headers_complete()
            return
        # Beyond --limit-concurrency: uvicorn would run its text/plain 503; the request runs ours instead.
        self.logger.warning("Exceeded concurrency limit.")
        app, self.app, self.limit_concurrency = self.app, _BUSY, None
        try:
            super().on_headers_complete()
        finally:
            self.app, self.limit_concurrency = app, limit

    def on_message_complete(self) -> None:
        self._request_received = True
        self._reading_head = True
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._request_received and not self.transport.is_closing():
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to what its parser refused, as a problem (a 431 when it was the head's size)."""
        if self._head_too_large:
            self._refuse_head()
            return
        self.transport.write(raw_problem(400, "bad_request", "The request is not valid HTTP/1.1."))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _refuse_head(self) -> None:
        self._head_too_large = True
        self._disarm_header_deadline()
        limits = self._limits
        detail = (
            f"The request head is larger than {limits.max_head_bytes} bytes "
            f"or has more than {limits.max_header_lines} header lines."
        )
        self.transport.write(raw_problem(431, "request_head_too_large", detail))
        self.transport.close()

    def _over_address_cap(self) -> bool:
        host = self.client[0] if self.client else None
        if host is None or _is_trusted_proxy(host, self.config.proxy_headers, self.config.forwarded_allow_ips):
            return False
        same = sum(1 for c in self.connections if isinstance(c, HttpToolsProtocol) and c.client and c.client[0] == host)
        return same > self._limits.max_connections_per_client

    def _arm_header_deadline(self) -> None:
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(self._limits.header_read_timeout, self._header_too_late)

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
        self.transport.write(raw_problem(408, "request_timeout", "The request head was not received in time."))
        self.transport.close()


def _is_trusted_proxy(host: str, proxy_headers: bool, forwarded_allow_ips: Any) -> bool:
    """Whether ``host`` is a proxy this server believes (``--proxy-headers`` and ``FORWARDED_ALLOW_IPS``)."""
    if not proxy_headers or not forwarded_allow_ips:
        return False
    entries = forwarded_allow_ips if isinstance(forwarded_allow_ips, list) else str(forwarded_allow_ips).split(",")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in (e.strip() for e in entries):
        if not entry or entry == "*":
            continue  # '*' believes everyone: it exempts no one from the cap
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
