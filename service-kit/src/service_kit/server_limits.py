"""The limits the server protocol applies, read from the environment once per process (the protocol is built
by uvicorn, not by the app's factory). A bad value is the default here: the service's settings
(``ServiceSettings``) refuse to start with it, naming the variable."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class ServerLimits:
    header_read_timeout: float = 10.0
    """``HEADER_READ_TIMEOUT_SECONDS``: a whole request head within this, else 408."""
    max_head_bytes: int = 32_768
    """``MAX_REQUEST_HEAD_BYTES``: request line and headers, else 431."""
    max_header_lines: int = 100
    """``MAX_REQUEST_HEADER_LINES``: header lines of one request, else 431."""
    max_connections_per_client: int = 256
    """``MAX_CONNECTIONS_PER_CLIENT``: open connections of one address (trusted proxies apart), else 503."""


def _positive(name: str, default: float, kind: type[float] | type[int]) -> float:
    try:
        value = kind(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


@cache
def server_limits() -> ServerLimits:
    """The limits of this process (``server_limits.cache_clear()`` re-reads the environment)."""
    default = ServerLimits()
    return ServerLimits(
        header_read_timeout=_positive("HEADER_READ_TIMEOUT_SECONDS", default.header_read_timeout, float),
        max_head_bytes=int(_positive("MAX_REQUEST_HEAD_BYTES", default.max_head_bytes, int)),
        max_header_lines=int(_positive("MAX_REQUEST_HEADER_LINES", default.max_header_lines, int)),
        max_connections_per_client=int(
            _positive("MAX_CONNECTIONS_PER_CLIENT", default.max_connections_per_client, int)
        ),
    )
