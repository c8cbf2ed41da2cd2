"""Model calls wait their turn under the deployment's limits, per model: ``LLM_MAX_CONCURRENCY`` calls in
flight at once, ``LLM_REQUESTS_PER_MINUTE`` calls started in any 60 seconds (a moving window) and
``LLM_TOKENS_PER_MINUTE`` tokens per minute (a fixed window). With ``REDIS_URL`` every service and replica that
uses the same Redis shares them (concurrency: ``SharedSlots``; per minute: the ``limits`` library's Redis
storage); without, they hold for this process.

A call over a limit waits; the limiter never refuses one. Within a process the waiters go in arrival order (one
queue per limit); across processes each one polls the shared store, so replicas are served only roughly in
arrival order. The wait has no bound of its own: ``OpenAICompatibleChat`` counts it in ``LLM_TIMEOUT_SECONDS``.
A call that leaves while waiting (its timeout, a cancelled request) takes nothing with it; one that leaves
holding a slot gives it back, and a process that dies holding one loses it for ``lease_seconds`` at most.

Tokens: a call reserves its estimate before it starts (``reservation``: its prompt's tokens estimated from the
text plus ``RESERVED_OUTPUT_TOKENS``, never more than the whole limit) and ``Turn.settle`` corrects the count by
what the endpoint reports it used, in whichever minute the answer arrives.

When the store fails or does not answer within ``STORE_TIMEOUT_SECONDS`` the call goes without the shared limit
(logged ``llm_limit_store_unavailable``); this process's own concurrency limit still holds.

Example::

    limiter = ModelCallLimiter.from_settings(settings)
    turn = limiter.turn(limiter.reservation(prompt))
    async with turn:                      # waits for a slot and the per-minute budgets
        reply = await send()
    await turn.settle(reply_tokens)
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar

import coredis
import structlog
from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

from service_kit.llm.shared_slots import SharedSlots
from service_kit.llm.usage_meter import estimate_tokens
from service_kit.rate_limits import STORE_TIMEOUT_SECONDS, async_storage, storage_uri
from service_kit.service_metrics import current_metrics
from service_kit.settings import EngineSettings

log = structlog.get_logger(__name__)
T = TypeVar("T")

RESERVED_OUTPUT_TOKENS = 1_000
"""What a call's answer is assumed to use until the endpoint says (the client sets no ``max_tokens``)."""
LEASE_MARGIN_SECONDS = 10.0
"""A shared slot's lease: the call's whole timeout (``LLM_TIMEOUT_SECONDS``, the wait included) and this."""
FIRST_POLL_SECONDS = 0.01
MAX_POLL_SECONDS = 0.25
"""While every shared slot is held, this process's first waiter asks again after 10 ms, doubling to 250 ms."""
REQUESTS = "llm-requests"
TOKENS = "llm-tokens"


@dataclass(frozen=True)
class CallLimits:
    """One model's limits; None: no limit of that kind. The per-minute ones count over ``window_seconds``."""

    max_concurrency: int | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    window_seconds: int = 60


class ModelCallLimiter:
    def __init__(
        self,
        model: str,
        limits: CallLimits,
        *,
        storage: Storage | None = None,
        slots: SharedSlots | None = None,
        redis: coredis.Redis[bytes] | None = None,
    ) -> None:
        """``storage``: the per-minute counters (needed with a per-minute limit); ``slots``: the concurrency
        shared with other processes; ``redis``: the client ``aclose`` closes."""
        self.model = model
        self.limits = limits
        self._local = asyncio.Semaphore(limits.max_concurrency) if limits.max_concurrency else None
        self._slots = slots
        self._redis = redis
        self._slot_queue = asyncio.Lock()
        self._rate_queue = asyncio.Lock()
        window = limits.window_seconds
        self._requests = (
            RateLimitItemPerSecond(limits.requests_per_minute, window) if limits.requests_per_minute else None
        )
        self._tokens = RateLimitItemPerSecond(limits.tokens_per_minute, window) if limits.tokens_per_minute else None
        if (self._requests or self._tokens) and storage is None:
            raise ValueError("a per-minute limit needs a storage")
        self._storage = storage or MemoryStorage()
        self._store_timeout = None if isinstance(self._storage, MemoryStorage) else STORE_TIMEOUT_SECONDS
        self._moving = MovingWindowRateLimiter(self._storage)
        self._fixed = FixedWindowRateLimiter(self._storage)

    @classmethod
    def from_settings(cls, settings: EngineSettings) -> ModelCallLimiter:
        """The limits of ``LLM_MODEL``, shared through ``REDIS_URL`` when it is set."""
        model = settings.llm_model or ""
        limits = CallLimits(
            max_concurrency=settings.model_limit(settings.llm_max_concurrency, model),
            requests_per_minute=settings.model_limit(settings.llm_requests_per_minute, model),
            tokens_per_minute=settings.model_limit(settings.llm_tokens_per_minute, model),
        )
        if settings.redis_url is None:
            return cls(model, limits, storage=MemoryStorage())
        redis: coredis.Redis[bytes] = coredis.Redis.from_url(settings.redis_url)
        slots = None
        if limits.max_concurrency:
            lease = settings.llm_timeout_seconds + LEASE_MARGIN_SECONDS
            slots = SharedSlots(redis, f"llm-calls/{model}", limit=limits.max_concurrency, lease_seconds=lease)
        return cls(model, limits, storage=async_storage(storage_uri(settings.redis_url)), slots=slots, redis=redis)

    def reservation(self, prompt: str) -> int:
        """The tokens a call of ``prompt`` reserves: 0 without a tokens-per-minute limit."""
        if self._tokens is None:
            return 0
        return min(estimate_tokens(prompt) + RESERVED_OUTPUT_TOKENS, self._tokens.amount)

    def turn(self, reserved_tokens: int = 0) -> Turn:
        """A call's turn, to enter with ``async with`` (``reserved_tokens``: ``reservation``)."""
        return Turn(self, reserved_tokens)

    async def wait(self, held: AsyncExitStack, reserved_tokens: int) -> None:
        """Waits until a call may go: a slot (given back when ``held`` closes), then the per-minute budgets."""
        if self._local is not None:
            await held.enter_async_context(self._local)
        if self._slots is not None:
            holder = await self._shared_slot(self._slots)
            if holder is not None:
                held.push_async_callback(self._release, self._slots, holder)
        if self._requests is None and self._tokens is None:
            return
        async with self._rate_queue:
            try:
                if self._requests is not None:
                    await self._take_request()
                if self._tokens is not None and reserved_tokens:
                    await self._take_tokens(reserved_tokens)
            except Exception as exc:  # the store is down or hung: the call goes, and says so
                log.warning("llm_limit_store_unavailable", error=type(exc).__name__)

    async def settle(self, reserved_tokens: int, used_tokens: int) -> None:
        """Corrects a reservation by what the call used."""
        if self._tokens is None or not reserved_tokens or used_tokens == reserved_tokens:
            return
        key = self._tokens.key_for(TOKENS, self.model)
        try:
            await self._store(self._storage.incr(key, self._tokens.get_expiry(), amount=used_tokens - reserved_tokens))
        except Exception as exc:
            log.warning("llm_limit_store_unavailable", error=type(exc).__name__)

    async def aclose(self) -> None:
        if self._redis is not None:
            self._redis.connection_pool.disconnect()

    async def _shared_slot(self, slots: SharedSlots) -> str | None:
        pause = FIRST_POLL_SECONDS
        async with self._slot_queue:  # this process's waiters in arrival order; only the first one polls
            while True:
                try:
                    holder = await self._store(slots.try_acquire())
                except Exception as exc:
                    log.warning("llm_limit_store_unavailable", error=type(exc).__name__)
                    return None
                if holder is not None:
                    return holder
                await asyncio.sleep(pause * random.uniform(0.5, 1.0))
                pause = min(pause * 2, MAX_POLL_SECONDS)

    async def _release(self, slots: SharedSlots, holder: str) -> None:
        try:
            await self._store(slots.release(holder))
        except Exception as exc:  # the lease ends it
            log.warning("llm_limit_store_unavailable", error=type(exc).__name__)

    async def _take_request(self) -> None:
        item = self._requests
        assert item is not None
        while not await self._store(self._moving.hit(item, REQUESTS, self.model)):
            stats = await self._store(self._moving.get_window_stats(item, REQUESTS, self.model))
            await _sleep_until(stats.reset_time)

    async def _take_tokens(self, tokens: int) -> None:
        item = self._tokens
        assert item is not None
        key = item.key_for(TOKENS, self.model)
        while not await self._store(self._fixed.hit(item, TOKENS, self.model, cost=tokens)):
            await self._store(self._storage.incr(key, item.get_expiry(), amount=-tokens))  # a refused hit counts
            await _sleep_until(await self._store(self._storage.get_expiry(key)))

    async def _store(self, call: Awaitable[T]) -> T:
        async with asyncio.timeout(self._store_timeout):
            return await call


class Turn:
    """One model call's place under the limits: ``async with`` waits for it (``granted`` once it has it) and
    holds it while the call runs; ``settle`` then corrects the call's token reservation by what it used."""

    def __init__(self, limiter: ModelCallLimiter, reserved_tokens: int) -> None:
        self.limiter = limiter
        self.reserved_tokens = reserved_tokens
        self.granted = False
        self._held = AsyncExitStack()

    async def __aenter__(self) -> Turn:
        metrics = current_metrics()
        model = self.limiter.model
        started = time.monotonic()
        if metrics is not None:
            metrics.count_waiting(model, 1)
        try:
            await self.limiter.wait(self._held, self.reserved_tokens)
        except BaseException:
            await self._held.aclose()
            raise
        finally:
            if metrics is not None:
                metrics.count_waiting(model, -1)
        self.granted = True
        waited = time.monotonic() - started
        if metrics is not None:
            metrics.observe_wait(model, waited)
        if waited >= 1.0:
            log.info("llm_call_waited", model=model, waited_seconds=round(waited, 3))
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._held.aclose()

    async def settle(self, used_tokens: int) -> None:
        await self.limiter.settle(self.reserved_tokens, used_tokens)


async def _sleep_until(moment: float) -> None:
    """Sleeps until ``moment`` (``time.time()``), a few ms more so that a window has turned, with jitter."""
    await asyncio.sleep(max(0.0, moment - time.time()) + random.uniform(0.005, 0.05))
