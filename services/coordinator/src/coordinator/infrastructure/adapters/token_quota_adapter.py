"""``ITokenQuota`` in this process (``MemoryTokenQuota``) or in Redis (``RedisTokenQuota``, when ``REDIS_URL`` is
set: every coordinator replica shares it).

A client's day is one record: ``used`` (tokens spent plus tokens held) and one entry per hold. A reservation
checks and adds in one step (in Redis one Lua script over one key, so replicas cannot interleave), and settling a
hold removes it and corrects ``used`` by what was spent, in one step too. The record expires 24 hours after the
day's first hold, taking its holds with it.

When Redis fails or does not answer within ``STORE_TIMEOUT_SECONDS`` the research is served and the failure
logged (``token_quota_store_unavailable``): limits never take the service down."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import coredis
import structlog

from coordinator.domain.ports.usage_ledger import ITokenQuota
from service_kit.rate_limits import STORE_TIMEOUT_SECONDS

log = structlog.get_logger(__name__)
T = TypeVar("T")

WINDOW_SECONDS = 86_400
KEY_PREFIX = "coordinator:token-quota:"

RESERVE = """
local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
local quota = tonumber(ARGV[1])
local total = 0
for i = 3, #ARGV, 2 do total = total + tonumber(ARGV[i + 1]) end
if used + total > quota then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = tonumber(ARGV[2]) end
  return ttl
end
redis.call('HINCRBY', KEYS[1], 'used', total)
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], 'hold:' .. ARGV[i], tonumber(ARGV[i + 1])) end
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
return -1
"""
"""KEYS[1]: the client's day; ARGV: the quota, the window in ms, then pairs of hold id and tokens. -1 once held,
else the milliseconds until the window resets."""

SETTLE = """
local held = tonumber(redis.call('HGET', KEYS[1], 'hold:' .. ARGV[1]) or '0')
local change = tonumber(ARGV[2]) - held
redis.call('HDEL', KEYS[1], 'hold:' .. ARGV[1])
if change ~= 0 then
  redis.call('HINCRBY', KEYS[1], 'used', change)
  if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3])) end
end
return change
"""
"""KEYS[1]: the client's day; ARGV: the hold id, the tokens it spent, the window in ms."""


def _refusal(daily_tokens: int, seconds_left: float) -> tuple[str, int]:
    detail = (
        f"The token quota ({daily_tokens} tokens per 24 hours) cannot hold this research's token budget: "
        "tokens are spent or held by the client's other researches."
    )
    return detail, max(1, math.ceil(seconds_left))


@dataclass
class _Day:
    ends: float
    used: int = 0
    holds: dict[str, int] = field(default_factory=dict)


class MemoryTokenQuota(ITokenQuota):
    """The counts of this process (lost when it stops). Nothing awaits between a check and its change, so
    concurrent requests of the same event loop cannot interleave."""

    def __init__(self, daily_tokens: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.daily_tokens = daily_tokens
        self._clock = clock
        self._days: dict[str, _Day] = {}

    def _day(self, client_id: str) -> _Day:
        now = self._clock()
        day = self._days.get(client_id)
        if day is None or day.ends <= now:
            day = self._days[client_id] = _Day(now + WINDOW_SECONDS)
        return day

    async def reserve(self, client_id: str, holds: Mapping[str, int]) -> tuple[str, int] | None:
        day = self._day(client_id)
        total = sum(holds.values())
        if day.used + total > self.daily_tokens:
            return _refusal(self.daily_tokens, day.ends - self._clock())
        day.used += total
        for hold, tokens in holds.items():
            day.holds[hold] = day.holds.get(hold, 0) + tokens
        return None

    async def settle(self, client_id: str, hold: str, spent: int) -> None:
        day = self._day(client_id)
        day.used += spent - day.holds.pop(hold, 0)

    async def used(self, client_id: str) -> int:
        """Tokens spent and held by ``client_id`` in its current window."""
        return self._day(client_id).used


class RedisTokenQuota(ITokenQuota):
    def __init__(self, redis: coredis.Redis[bytes], daily_tokens: int) -> None:
        self.daily_tokens = daily_tokens
        self._redis = redis
        self._reserve = redis.register_script(RESERVE)
        self._settle = redis.register_script(SETTLE)

    @classmethod
    def from_url(cls, redis_url: str, daily_tokens: int) -> RedisTokenQuota:
        return cls(coredis.Redis.from_url(redis_url), daily_tokens)

    async def reserve(self, client_id: str, holds: Mapping[str, int]) -> tuple[str, int] | None:
        pairs = [value for hold, tokens in holds.items() for value in (hold, tokens)]
        args = (self.daily_tokens, WINDOW_SECONDS * 1000, *pairs)
        answer = await _unless_unavailable(self._reserve(keys=[KEY_PREFIX + client_id], args=args))
        left_ms = int(answer) if isinstance(answer, int | str | bytes) else -1  # None: Redis unavailable
        return None if left_ms < 0 else _refusal(self.daily_tokens, left_ms / 1000)

    async def settle(self, client_id: str, hold: str, spent: int) -> None:
        args = (hold, spent, WINDOW_SECONDS * 1000)
        await _unless_unavailable(self._settle(keys=[KEY_PREFIX + client_id], args=args))

    async def used(self, client_id: str) -> int:
        """Tokens spent and held by ``client_id`` in its current window."""
        return int(await self._redis.hget(KEY_PREFIX + client_id, "used") or 0)


def token_quota_for(redis_url: str | None, daily_tokens: int) -> ITokenQuota:
    """The quota shared through ``redis_url``, or this process's."""
    return RedisTokenQuota.from_url(redis_url, daily_tokens) if redis_url else MemoryTokenQuota(daily_tokens)


async def _unless_unavailable(call: Awaitable[T]) -> T | None:
    try:
        async with asyncio.timeout(STORE_TIMEOUT_SECONDS):
            return await call
    except Exception as exc:  # Redis is down or hung: serve, and say so
        log.warning("token_quota_store_unavailable", error=type(exc).__name__)
        return None
