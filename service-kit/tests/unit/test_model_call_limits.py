"""The model-call limits (service_kit.llm.call_limits) against a fake model that counts the calls it serves at
once: calls over a limit wait and all succeed; two clients sharing Redis (two replicas) stay under one limit
together; a holder that dies gives its slot back. The Redis tests skip without a server at 127.0.0.1:6379."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import coredis
import httpx2
import pytest
from contract_testkit import LLM_TEST_BASE_URL, completion_body, mock_llm_http_client
from prometheus_client import CollectorRegistry
from starlette.types import Message, Receive, Scope, Send

from service_kit.llm.call_limits import CallLimits, ModelCallLimiter
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.errors import LLMUnavailableError
from service_kit.llm.shared_slots import SharedSlots
from service_kit.rate_limits import async_storage, storage_uri
from service_kit.service_metrics import MetricsContextMiddleware, ServiceMetrics
from service_kit.settings import EngineSettings

REDIS_URL = "redis://127.0.0.1:6379/13"


def _redis_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


needs_redis = pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379")


class FakeModel:
    """An OpenAI-compatible endpoint that answers after ``latency`` seconds and counts the calls it serves at once
    (``peak``) and when each started (``starts``, time.monotonic()); with ``hold`` a call waits for ``release``."""

    def __init__(self, latency: float = 0.05, usage: tuple[int, int] = (10, 5)) -> None:
        self.latency = latency
        self.usage = usage
        self.in_flight = 0
        self.peak = 0
        self.starts: list[float] = []
        self.release = asyncio.Event()
        self.serving = asyncio.Event()
        self.hold = False

    async def handler(self, _request: httpx2.Request) -> httpx2.Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.starts.append(time.monotonic())
        self.serving.set()
        try:
            if self.hold:
                await self.release.wait()
            else:
                await asyncio.sleep(self.latency)
        finally:
            self.in_flight -= 1
        return httpx2.Response(200, json=completion_body('{"ok": true}', usage=self.usage))

    def chat(self, limiter: ModelCallLimiter, timeout_seconds: float = 10) -> OpenAICompatibleChat:
        return OpenAICompatibleChat(
            model=limiter.model,
            base_url=LLM_TEST_BASE_URL,
            api_key="k",
            timeout_seconds=timeout_seconds,
            max_retries=0,
            http_client=mock_llm_http_client(self.handler),
            limiter=limiter,
        )


def a_model() -> str:
    """A model name of its own, so that a test's counters in a shared Redis are its own."""
    return f"test-model-{uuid.uuid4().hex[:12]}"


def replica(model: str, *, redis: bool, **limits: object) -> ModelCallLimiter:
    """A limiter as one service process builds it from its settings."""
    env = {f"llm_{name}": value for name, value in limits.items()}
    settings = EngineSettings(llm_model=model, redis_url=REDIS_URL if redis else None, **env)  # type: ignore[arg-type]
    return ModelCallLimiter.from_settings(settings)


async def many(chat: OpenAICompatibleChat, calls: int) -> list[str]:
    replies = await asyncio.gather(*(chat.complete(f"prompt {i}", None, 0.0) for i in range(calls)))
    return [reply.text for reply in replies]


@pytest.fixture
async def closing() -> AsyncIterator[Callable[[OpenAICompatibleChat], OpenAICompatibleChat]]:
    chats: list[OpenAICompatibleChat] = []

    def keep(chat: OpenAICompatibleChat) -> OpenAICompatibleChat:
        chats.append(chat)
        return chat

    yield keep
    for chat in chats:
        await chat.aclose()


async def test_calls_over_the_concurrency_limit_wait_their_turn_and_all_succeed(closing: Callable) -> None:
    model = FakeModel()
    chat = closing(model.chat(replica(a_model(), redis=False, max_concurrency=3)))
    replies = await many(chat, 20)
    assert replies == ['{"ok": true}'] * 20
    assert model.peak == 3


async def test_without_redis_each_replica_keeps_its_own_limit(closing: Callable) -> None:
    model, name = FakeModel(), a_model()
    first = closing(model.chat(replica(name, redis=False, max_concurrency=3)))
    second = closing(model.chat(replica(name, redis=False, max_concurrency=3)))
    await asyncio.gather(many(first, 12), many(second, 12))
    assert model.peak == 6


@needs_redis
async def test_two_replicas_sharing_redis_never_exceed_the_limit_together(closing: Callable) -> None:
    model, name = FakeModel(), a_model()
    first = closing(model.chat(replica(name, redis=True, max_concurrency=3)))
    second = closing(model.chat(replica(name, redis=True, max_concurrency=3)))
    replies = await asyncio.gather(many(first, 12), many(second, 12))
    assert [len(r) for r in replies] == [12, 12]
    assert model.peak == 3


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=needs_redis)], ids=["memory", "redis"])
async def test_requests_over_the_per_minute_limit_wait_for_the_window(redis: bool) -> None:
    """3 calls per 1-second window: 7 calls all succeed, no 4 of them start within one window."""
    model = FakeModel(latency=0.0)
    storage = async_storage(storage_uri(REDIS_URL if redis else None))
    limiter = ModelCallLimiter(a_model(), CallLimits(requests_per_minute=3, window_seconds=1), storage=storage)
    chat = model.chat(limiter)
    started = time.monotonic()
    assert len(await many(chat, 7)) == 7
    starts = sorted(model.starts)
    assert all(later - earlier >= 0.95 for earlier, later in zip(starts, starts[3:], strict=False))
    assert time.monotonic() - started >= 1.9
    await chat.aclose()


async def test_a_token_reservation_is_corrected_by_what_the_call_used() -> None:
    """Reserving 1,500 of 2,000 tokens per window would hold the next call for the window (5 s); the call used
    15, so the next one goes at once."""
    model = FakeModel(latency=0.0, usage=(10, 5))
    limits = CallLimits(tokens_per_minute=2000, window_seconds=5)
    limiter = ModelCallLimiter(a_model(), limits, storage=async_storage(storage_uri(None)))
    chat = model.chat(limiter)
    assert limiter.reservation("short prompt") == 1003  # 3 tokens of prompt and 1,000 for the answer
    started = time.monotonic()
    await chat.complete("short prompt", None, 0.0)
    await chat.complete("short prompt", None, 0.0)
    assert time.monotonic() - started < 1.0
    turn = limiter.turn(1500)
    async with turn:
        pass  # 1,500 reserved and never settled: the next call waits for the window
    with pytest.raises(LLMUnavailableError, match="waiting for its turn"):
        await model.chat(limiter, timeout_seconds=0.5).complete("short prompt", None, 0.0)


@needs_redis
async def test_a_cancelled_call_gives_its_shared_slot_back(closing: Callable) -> None:
    model, name = FakeModel(), a_model()
    model.hold = True
    chat = closing(model.chat(replica(name, redis=True, max_concurrency=1)))
    held = asyncio.create_task(chat.complete("first", None, 0.0))
    await model.serving.wait()
    held.cancel()
    with pytest.raises(asyncio.CancelledError):
        await held
    model.hold = False
    other = closing(model.chat(replica(name, redis=True, max_concurrency=1)))
    async with asyncio.timeout(2):
        assert (await other.complete("second", None, 0.0)).text == '{"ok": true}'


@needs_redis
async def test_a_slot_whose_holder_died_is_free_when_its_lease_ends() -> None:
    redis: coredis.Redis[bytes] = coredis.Redis.from_url(REDIS_URL)
    slots = SharedSlots(redis, a_model(), limit=1, lease_seconds=0.3)
    assert await slots.try_acquire() is not None  # and never released: its process died
    assert await slots.try_acquire() is None
    assert await slots.holders() == 1
    await asyncio.sleep(0.4)
    assert await slots.holders() == 0
    assert await slots.try_acquire() is not None
    redis.connection_pool.disconnect()


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=needs_redis)], ids=["memory", "redis"])
async def test_a_wait_longer_than_the_timeout_is_unavailable_and_holds_nothing(redis: bool, closing: Callable) -> None:
    model, name = FakeModel(), a_model()
    model.hold = True
    limiter = replica(name, redis=redis, max_concurrency=1)
    first = closing(model.chat(limiter))
    held = asyncio.create_task(first.complete("first", None, 0.0))
    await model.serving.wait()
    with pytest.raises(LLMUnavailableError, match=r"LLM_TIMEOUT_SECONDS \(0.2 s\)"):
        await closing(model.chat(limiter, timeout_seconds=0.2)).complete("second", None, 0.0)
    model.release.set()
    await held
    assert (await first.complete("third", None, 0.0)).text == '{"ok": true}'


def test_each_service_reads_the_limits_of_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MAX_CONCURRENCY", "16")
    monkeypatch.setenv("LLM_REQUESTS_PER_MINUTE", '{"gpt-4o": 500, "gpt-4o-mini": 3000}')
    monkeypatch.setenv("LLM_TOKENS_PER_MINUTE", '{"gpt-4o": 30000}')
    limiter = build_chat_client(EngineSettings()).limiter
    assert limiter.limits == CallLimits(max_concurrency=16, requests_per_minute=3000, tokens_per_minute=None)


async def test_waiting_calls_and_their_wait_are_in_the_service_metrics(closing: Callable) -> None:
    registry = CollectorRegistry()
    model, name = FakeModel(), a_model()
    chat = closing(model.chat(replica(name, redis=False, max_concurrency=1)))
    waiting: list[float] = []

    async def app(_scope: Scope, _receive: Receive, _send: Send) -> None:
        calls = asyncio.gather(*(chat.complete(str(i), None, 0.0) for i in range(3)))
        await asyncio.sleep(0.02)
        waiting.append(registry.get_sample_value("llm_calls_waiting", {"service": "t", "model": name}) or 0.0)
        await calls

    await _in_a_request(MetricsContextMiddleware(app, ServiceMetrics.registered("t", registry)))
    assert waiting == [2.0]
    labels = {"service": "t", "model": name}
    assert registry.get_sample_value("llm_call_wait_seconds_count", labels) == 3
    assert registry.get_sample_value("llm_calls_waiting", labels) == 0


async def _in_a_request(app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(_message: Message) -> None:
        return None

    await app({"type": "http", "path": "/", "method": "GET", "headers": []}, receive, send)


async def test_calls_go_when_the_shared_store_is_down(closing: Callable) -> None:
    """Limits never take the service down: with no Redis at REDIS_URL the calls go, under this process's limit."""
    model = FakeModel()
    settings = EngineSettings(
        llm_model=a_model(), redis_url="redis://127.0.0.1:1/0", llm_max_concurrency=2, llm_requests_per_minute=1
    )
    chat = closing(model.chat(ModelCallLimiter.from_settings(settings)))
    assert len(await many(chat, 4)) == 4
    assert model.peak == 2
