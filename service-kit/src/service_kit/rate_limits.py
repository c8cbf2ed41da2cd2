"""Per-client rate limits and the daily research quota (the ``limits`` library), answered 429 with
``Retry-After``. Counters live in Redis when ``REDIS_URL`` is set (shared by every replica), else in memory.

Every ``/api/`` POST counts against ``RATE_LIMIT_WRITES``, any other request against ``RATE_LIMIT_READS``. A
POST under the service's research path takes one research of ``RESEARCH_DAILY_QUOTA`` (a 24-hour window the
first opens) before it runs, in one atomic increment of the counter (so concurrent researches cannot overshoot:
of 20 at once with a quota of 5, exactly 5 run), and is refused when none is left; the research is given back
when it is refused as a client mistake (4xx). One that ran counts: answered 2xx, or 5xx (it failed on the
services' side). Calls from
a ``service`` key (the coordinator, which is limited itself) are not counted. When the counter store does not
answer within ``STORE_TIMEOUT_SECONDS`` the request is served and the failure logged: limits never take the
service down."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

import structlog
from limits import RateLimitItem, RateLimitItemPerDay, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, RateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service_kit.api_keys import Client
from service_kit.asgi import HttpMiddleware
from service_kit.authentication import API_PREFIX
from service_kit.problems import problem_response

log = structlog.get_logger(__name__)

T = TypeVar("T")
STORE_TIMEOUT_SECONDS = 3.0
"""How long a remote counter store (Redis) may take before a request is served without it. Counted in wall time,
so it must exceed what a busy event loop adds: at 0.5 s, 20 concurrent researches on two cores timed out and
overshot the quota. The in-process store cannot hang and has no timeout."""
QUOTA = "research-quota"


@dataclass(frozen=True)
class Refusal:
    code: str
    detail: str
    retry_after_seconds: int


def storage_uri(redis_url: str | None) -> str:
    """``limits`` storage for ``REDIS_URL`` (its asyncio Redis client), or memory."""
    return f"async+{redis_url}" if redis_url else "async+memory://"


class ClientRateLimits:
    def __init__(self, *, writes: str, reads: str, daily_quota: int, storage: Storage) -> None:
        self._storage = storage
        self.store_timeout = None if isinstance(storage, MemoryStorage) else STORE_TIMEOUT_SECONDS
        self._rates = MovingWindowRateLimiter(storage)
        self._quota = FixedWindowRateLimiter(storage)
        self._writes = parse_many(writes)
        self._reads = parse_many(reads)
        self._daily = RateLimitItemPerDay(daily_quota) if daily_quota else None

    @classmethod
    def from_uri(cls, uri: str, *, writes: str, reads: str, daily_quota: int) -> ClientRateLimits:
        return cls(writes=writes, reads=reads, daily_quota=daily_quota, storage=async_storage(uri))

    async def check(self, client_id: str, *, write: bool, research: bool) -> Refusal | None:
        """Count one request of ``client_id``; a ``Refusal`` when a limit is already used up. For ``research``,
        one research of the quota is also taken (``refund_research`` gives it back)."""
        kind = "writes" if write else "reads"
        for item in self._writes if write else self._reads:
            refused = await self._hit(self._rates, item, kind, client_id)
            if refused is not None:
                return Refusal("rate_limited", f"Too many requests: at most {item} ({kind}).", refused)
        if research and self._daily is not None and not await self._quota.hit(self._daily, QUOTA, client_id):
            await self.refund_research(client_id)  # the counter is incremented even when the hit is refused
            stats = await self._quota.get_window_stats(self._daily, QUOTA, client_id)
            detail = f"The research quota ({self._daily.amount} per 24 hours) is used up."
            return Refusal("research_quota_exceeded", detail, _seconds_until(stats.reset_time))
        return None

    async def refund_research(self, client_id: str) -> None:
        """Give back one research taken by ``check`` (one atomic decrement of the same counter)."""
        if self._daily is not None:
            key = self._daily.key_for(QUOTA, client_id)
            await self._storage.incr(key, self._daily.get_expiry(), amount=-1)

    async def _hit(self, strategy: RateLimiter, item: RateLimitItem, kind: str, client_id: str) -> int | None:
        if await strategy.hit(item, kind, client_id):
            return None
        stats = await strategy.get_window_stats(item, kind, client_id)
        return _seconds_until(stats.reset_time)


class RateLimitMiddleware(HttpMiddleware):
    """``quota_path``: POSTs whose path starts with it also count against the daily quota."""

    def __init__(self, app: ASGIApp, limits: ClientRateLimits | None, quota_path: str | None) -> None:
        super().__init__(app)
        self.limits = limits
        self.quota_path = quota_path

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        client: Client | None = scope.get("state", {}).get("client")
        if self.limits is None or client is None or client.is_service or not scope["path"].startswith(API_PREFIX):
            await self.app(scope, receive, send)
            return
        limits = self.limits
        write = scope["method"] == "POST"
        research = write and self.quota_path is not None and scope["path"].startswith(self.quota_path)
        timeout = limits.store_timeout
        refusal = await _unless_unavailable(limits.check(client.client_id, write=write, research=research), timeout)
        if refusal is not None:
            response = problem_response(429, refusal.code, refusal.detail)
            response.headers["Retry-After"] = str(refusal.retry_after_seconds)
            await response(scope, receive, send)
            return
        if not research:
            await self.app(scope, receive, send)
            return
        status = 0

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            if 400 <= status < 500:  # refused as a client mistake: it did not run
                await _unless_unavailable(limits.refund_research(client.client_id), timeout)


async def _unless_unavailable(call: Awaitable[T], limit_seconds: float | None) -> T | None:
    """``call``'s result, or None (logged) when the counter store fails or does not answer within ``limit_seconds``."""
    try:
        async with asyncio.timeout(limit_seconds):
            return await call
    except Exception as exc:  # the counter store is down or hung: serve, and say so
        log.warning("rate_limit_store_unavailable", error=type(exc).__name__)
        return None


def _seconds_until(reset_time: float) -> int:
    return max(1, math.ceil(reset_time - time.time()))


def async_storage(uri: str) -> Storage:
    """The asyncio ``limits`` storage of ``uri`` (``storage_uri``)."""
    storage = storage_from_string(uri)
    if not isinstance(storage, Storage):
        raise ValueError(f"not an asyncio limits storage: {uri}")
    return storage
