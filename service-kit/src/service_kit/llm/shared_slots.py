"""A counting semaphore on Redis whose slots expire: at most ``limit`` holders of ``name`` at once across every
process that uses the same Redis, and a holder that dies without releasing gives its slot back when its lease
ends.

The holders are a sorted set (holder id → end of its lease, in Redis's own clock); one Lua script drops the
expired leases and takes a slot if one is free, atomically. A holder must release (``release``) or finish within
its lease: ``lease_seconds`` is longer than anything a holder does while holding.

Example::

    slots = SharedSlots(redis, "llm-calls/gpt-4o", limit=32, lease_seconds=70)
    holder = await slots.try_acquire()      # None while every slot is held: ask again later
    if holder is not None:
        try:
            ...
        finally:
            await slots.release(holder)
"""

from __future__ import annotations

import uuid

import coredis

ACQUIRE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now_ms + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return 1
end
return 0
"""
"""KEYS[1]: the holders; ARGV: the limit, the holder's id, its lease in ms. 1 when the holder now holds a slot."""

KEY_PREFIX = "service-kit:slots:"


class SharedSlots:
    def __init__(self, redis: coredis.Redis[bytes], name: str, *, limit: int, lease_seconds: float) -> None:
        self._redis = redis
        self._key = KEY_PREFIX + name
        self._limit = limit
        self._lease_ms = max(1, round(lease_seconds * 1000))
        self._acquire = redis.register_script(ACQUIRE)

    async def try_acquire(self) -> str | None:
        """A holder id when a slot was free (now held), else None."""
        holder = uuid.uuid4().hex
        taken = await self._acquire(keys=[self._key], args=[self._limit, holder, self._lease_ms])
        return holder if taken == 1 else None

    async def release(self, holder: str) -> None:
        await self._redis.zrem(self._key, [holder])

    async def holders(self) -> int:
        """How many slots are held now (expired leases not counted)."""
        now_ms = int((await self._redis.time()).timestamp() * 1000)
        return await self._redis.zcount(self._key, now_ms + 1, "+inf")
