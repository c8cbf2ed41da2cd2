"""A caching, budgeting proxy between the services and the real OpenAI-compatible endpoint (LLM mode).

The evaluator points the services' ``LLM_BASE_URL`` at it. Each ``POST …/chat/completions`` is answered from the
disk cache when the same request body was answered before (``<cache>/<sha256[:2]>/<sha256>.json``, the body's
SHA-256 without the prompt fences' random ids), else forwarded to ``upstream + path`` with the caller's headers
(``Authorization``) and, on a 200 with choices, cached: a rerun of the same evaluation costs nothing. Identical
requests in flight at once (the two configurations ask the technical analyst the same question) share one upstream
call.

It counts what it forwards (``LLMStats``: calls, ``usage.total_tokens`` or prompt + completion when the endpoint
reports them) and what it answered from the cache. The runner asks ``Budget.decide`` before each research; the proxy
itself refuses a call (HTTP 402, which the services do not retry) once a limit is reached, so a research that needed
more calls than reserved cannot overspend.

``serving(proxy)`` runs it under uvicorn on a free loopback port, in a thread of its own (uvicorn there installs no
signal handler: Ctrl-C stays the evaluator's)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import httpx

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CHAT_SUFFIX = "/chat/completions"
UPSTREAM_TIMEOUT_S = 300.0
_DROPPED_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding", "keep-alive"}
_KEPT_RESPONSE_HEADERS = ("content-type", "retry-after")


_FENCE_ID = re.compile(rb"(UNTRUSTED [^>\n]*>>> fence=)[0-9a-f]{16}")


def cache_key(body: bytes) -> str:
    """SHA-256 of the body with each prompt fence's random id (``fence=<16 hex>``, new for every request) left
    out, so the same question asked again is the same request: ``…UNTRUSTED X>>> fence=0123456789abcdef`` and
    ``…UNTRUSTED X>>> fence=fedcba9876543210`` give one key."""
    return hashlib.sha256(_FENCE_ID.sub(rb"\1", body)).hexdigest()


def tokens_of(body: bytes) -> int:
    """``usage.total_tokens`` of a chat completion (else prompt + completion tokens; 0 when not reported)."""
    try:
        usage = json.loads(body).get("usage") or {}
    except (ValueError, AttributeError):
        return 0
    if not isinstance(usage, dict):
        return 0
    total = usage.get("total_tokens")
    if isinstance(total, int):
        return total
    parts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    return sum(part for part in parts if isinstance(part, int))


def _cacheable(status: int, body: bytes) -> bool:
    if status != 200:
        return False
    try:
        reply = json.loads(body)
    except ValueError:
        return False
    return isinstance(reply, dict) and bool(reply.get("choices"))


@dataclass(frozen=True)
class LLMStats:
    upstream_calls: int = 0
    upstream_tokens: int = 0
    upstream_errors: int = 0
    """Upstream answers other than 200 (counted in ``upstream_calls`` too)."""
    cache_hits: int = 0
    cache_hit_tokens: int = 0
    refused_over_budget: int = 0

    @property
    def calls_seen(self) -> int:
        return self.upstream_calls + self.cache_hits

    @property
    def tokens_per_call(self) -> float | None:
        """Tokens per call over every answer seen, cached ones included (the estimate of what a call costs);
        None before the first answer (0 when the endpoint reports no usage: the token limit cannot bind)."""
        tokens = self.upstream_tokens + self.cache_hit_tokens
        return tokens / self.calls_seen if self.calls_seen else None


@dataclass(frozen=True)
class Budget:
    """Limits on what is forwarded upstream (cache hits are free). ``None``: no limit."""

    max_calls: int | None = None
    max_tokens: int | None = None

    @property
    def limited(self) -> bool:
        return self.max_calls is not None or self.max_tokens is not None

    def exhausted(self, stats: LLMStats) -> str | None:
        """Why no further call may be forwarded, or None."""
        if self.max_calls is not None and stats.upstream_calls >= self.max_calls:
            return f"the LLM call budget ({self.max_calls}) is spent"
        if self.max_tokens is not None and stats.upstream_tokens >= self.max_tokens:
            return f"the LLM token budget ({self.max_tokens}) is spent"
        return None

    def decide(self, stats: LLMStats, *, in_flight: int, calls_per_research: int) -> Literal["start", "wait", "stop"]:
        """May one more research start while ``in_flight`` others run? Each is reserved ``calls_per_research``
        calls and that many times the tokens per call seen so far; ``wait``: with a token limit, before any
        call has been seen, one research at a time (its cost is unknown)."""
        reserved = in_flight + 1
        if self.max_calls is not None and stats.upstream_calls + reserved * calls_per_research > self.max_calls:
            return "wait" if in_flight else "stop"
        if self.max_tokens is not None:
            per_call = stats.tokens_per_call
            if per_call is None:
                if in_flight:
                    return "wait"
                return "start" if stats.upstream_tokens < self.max_tokens else "stop"
            if stats.upstream_tokens + reserved * calls_per_research * per_call > self.max_tokens:
                return "wait" if in_flight else "stop"
        return "start"


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes
    headers: tuple[tuple[bytes, bytes], ...] = ()


@dataclass
class LLMProxy:
    """The ASGI app. ``transport`` replaces the network in tests."""

    upstream: str
    cache_dir: Path
    budget: Budget = field(default_factory=Budget)
    transport: httpx.AsyncBaseTransport | None = None
    _stats: LLMStats = field(default_factory=LLMStats, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _client: httpx.AsyncClient | None = field(default=None, init=False, repr=False)
    _pending: dict[str, asyncio.Future[_Reply]] = field(default_factory=dict, init=False, repr=False)

    @property
    def stats(self) -> LLMStats:
        with self._lock:
            return self._stats

    def _count(self, **increments: int) -> None:
        with self._lock:
            self._stats = replace(
                self._stats, **{name: getattr(self._stats, name) + value for name, value in increments.items()}
            )

    def cache_path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path: str = scope["path"]
        if scope["method"] != "POST" or not path.endswith(CHAT_SUFFIX):
            await _respond(send, _error(404, f"the evaluation proxy forwards POST …{CHAT_SUFFIX} only"))
            return
        headers = {
            k.decode("latin-1"): v.decode("latin-1")
            for k, v in scope["headers"]
            if k.decode("latin-1").lower() not in _DROPPED_HEADERS
        }
        query = scope.get("query_string", b"").decode("latin-1")
        await _respond(send, await self.complete(path + (f"?{query}" if query else ""), body, headers))

    async def complete(self, path: str, body: bytes, headers: dict[str, str]) -> _Reply:
        key = cache_key(body)
        cached = self._read_cache(key)
        if cached is not None:
            self._count(cache_hits=1, cache_hit_tokens=tokens_of(cached))
            return _Reply(200, cached, ((b"content-type", b"application/json"),))
        pending = self._pending.get(key)
        if pending is not None:  # the same request is already on its way upstream: share its answer
            reply = await asyncio.shield(pending)
            if reply.status == 200:
                self._count(cache_hits=1, cache_hit_tokens=tokens_of(reply.body))
            return reply
        future: asyncio.Future[_Reply] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            reply = await self._forward(path, body, headers, key)
            future.set_result(reply)
            return reply
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody shared it
            raise
        finally:
            del self._pending[key]

    async def _forward(self, path: str, body: bytes, headers: dict[str, str], key: str) -> _Reply:
        refusal = self.budget.exhausted(self.stats)
        if refusal is not None:
            self._count(refused_over_budget=1)
            return _error(402, f"evaluation proxy: {refusal}")
        self._count(upstream_calls=1)  # counted as it leaves: calls in flight at once cannot overrun the limit
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=UPSTREAM_TIMEOUT_S, transport=self.transport)
        try:
            response = await self._client.post(self.upstream.rstrip("/") + path, content=body, headers=headers)
        except httpx.HTTPError as exc:
            self._count(upstream_errors=1)
            return _error(502, f"evaluation proxy: the LLM endpoint failed: {exc!r}")
        content = response.content
        ok = response.status_code == 200
        self._count(upstream_tokens=tokens_of(content) if ok else 0, upstream_errors=0 if ok else 1)
        if _cacheable(response.status_code, content):
            self._write_cache(key, content)
        kept = tuple(
            (name.encode("latin-1"), response.headers[name].encode("latin-1"))
            for name in _KEPT_RESPONSE_HEADERS
            if name in response.headers
        )
        return _Reply(response.status_code, content, kept)

    def _read_cache(self, key: str) -> bytes | None:
        try:
            return self.cache_path(key).read_bytes()
        except OSError:
            return None

    def _write_cache(self, key: str, content: bytes) -> None:
        path = self.cache_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_bytes(content)
        temporary.replace(path)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _error(status: int, message: str) -> _Reply:
    body = json.dumps({"error": {"message": message, "type": "evaluation_proxy"}}).encode()
    return _Reply(status, body, ((b"content-type", b"application/json"),))


async def _respond(send: Send, reply: _Reply) -> None:
    headers = [*reply.headers, (b"content-length", str(len(reply.body)).encode())]
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body})


@contextlib.contextmanager
def serving(proxy: LLMProxy, port: int, startup_timeout: float = 15.0) -> Iterator[str]:
    """Serve ``proxy`` on ``127.0.0.1:port`` (uvicorn, its own thread and event loop); yields its URL."""
    import uvicorn  # the services' server; only LLM mode needs it here

    config = uvicorn.Config(proxy, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), name="llm-proxy", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the LLM proxy did not start on 127.0.0.1:{port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
