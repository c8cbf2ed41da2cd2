"""The caching, budgeting LLM proxy: cache key and hit, what is counted, the budget's refusals; no network
(the upstream is an ``httpx.MockTransport``, the proxy is called as an ASGI app)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from evaluation.llm_proxy import Budget, LLMProxy, LLMStats, cache_key, tokens_of

UPSTREAM = "http://llm.test/v1"
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "analyse 600519.SH"}], "temperature": 0.2}


def completion(text: str = '{"signal": "BULLISH"}', total_tokens: int | None = 120) -> dict[str, Any]:
    reply: dict[str, Any] = {"model": "m", "choices": [{"message": {"content": text}, "finish_reason": "stop"}]}
    if total_tokens is not None:
        reply["usage"] = {"prompt_tokens": total_tokens - 20, "completion_tokens": 20, "total_tokens": total_tokens}
    return reply


class Upstream:
    """The real endpoint's stand-in: records each request, answers with ``reply(request)``."""

    def __init__(self, reply: Callable[[httpx.Request], httpx.Response] | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.reply = reply or (lambda _request: httpx.Response(200, json=completion()))

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        await asyncio.sleep(0.01)
        return self.reply(request)


def proxy_for(tmp_path: Path, upstream: Upstream, budget: Budget | None = None) -> LLMProxy:
    transport = httpx.MockTransport(upstream.handle)
    return LLMProxy(UPSTREAM, tmp_path / "llm-cache", budget or Budget(), transport=transport)


async def post(proxy: LLMProxy, body: dict[str, Any] | bytes, path: str = "/chat/completions") -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=proxy), base_url="http://proxy") as client:
        return await client.post(path, content=content, headers={"Authorization": "Bearer sk-test"})


def test_the_cache_key_is_the_sha256_of_the_exact_body() -> None:
    body = json.dumps(REQUEST).encode()
    assert cache_key(body) == hashlib.sha256(body).hexdigest()
    assert cache_key(body) != cache_key(json.dumps(REQUEST, indent=1).encode())


def test_tokens_are_total_tokens_else_prompt_plus_completion_else_zero() -> None:
    assert tokens_of(json.dumps(completion(total_tokens=120)).encode()) == 120
    assert tokens_of(json.dumps({"usage": {"prompt_tokens": 7, "completion_tokens": 3}}).encode()) == 10
    assert tokens_of(json.dumps(completion(total_tokens=None)).encode()) == 0
    assert tokens_of(b"not json") == 0


async def test_a_miss_is_forwarded_with_the_callers_headers_and_cached(tmp_path: Path) -> None:
    upstream = Upstream()
    proxy = proxy_for(tmp_path, upstream)
    response = await post(proxy, REQUEST)
    assert response.status_code == 200
    assert response.json() == completion()
    (request,) = upstream.requests
    assert str(request.url) == UPSTREAM + "/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.content == json.dumps(REQUEST).encode()
    key = cache_key(json.dumps(REQUEST).encode())
    assert proxy.cache_path(key) == tmp_path / "llm-cache" / key[:2] / f"{key}.json"
    assert json.loads(proxy.cache_path(key).read_bytes()) == completion()
    assert proxy.stats == LLMStats(upstream_calls=1, upstream_tokens=120)


async def test_a_hit_costs_nothing_even_for_a_new_proxy_on_the_same_cache(tmp_path: Path) -> None:
    upstream = Upstream()
    await post(proxy_for(tmp_path, upstream), REQUEST)
    rerun = proxy_for(tmp_path, upstream)
    response = await post(rerun, REQUEST)
    assert (response.status_code, response.json()) == (200, completion())
    assert len(upstream.requests) == 1
    assert rerun.stats == LLMStats(cache_hits=1, cache_hit_tokens=120)
    different = await post(rerun, {**REQUEST, "temperature": 0.3})
    assert different.status_code == 200
    assert len(upstream.requests) == 2


async def test_identical_requests_in_flight_share_one_upstream_call(tmp_path: Path) -> None:
    upstream = Upstream()
    proxy = proxy_for(tmp_path, upstream)
    answers = await asyncio.gather(post(proxy, REQUEST), post(proxy, REQUEST), post(proxy, REQUEST))
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert len(upstream.requests) == 1
    assert proxy.stats == LLMStats(upstream_calls=1, upstream_tokens=120, cache_hits=2, cache_hit_tokens=240)


async def test_an_upstream_error_is_passed_on_counted_and_not_cached(tmp_path: Path) -> None:
    upstream = Upstream(
        lambda _r: httpx.Response(429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "2"})
    )
    proxy = proxy_for(tmp_path, upstream)
    response = await post(proxy, REQUEST)
    assert (response.status_code, response.headers["retry-after"]) == (429, "2")
    await post(proxy, REQUEST)
    assert len(upstream.requests) == 2
    assert proxy.stats == LLMStats(upstream_calls=2, upstream_errors=2)
    assert not (tmp_path / "llm-cache").exists()


async def test_a_200_without_choices_is_not_cached(tmp_path: Path) -> None:
    proxy = proxy_for(tmp_path, Upstream(lambda _r: httpx.Response(200, json={"error": {"message": "overloaded"}})))
    assert (await post(proxy, REQUEST)).status_code == 200
    assert not (tmp_path / "llm-cache").exists()


async def test_an_unreachable_endpoint_is_a_502(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    proxy = proxy_for(tmp_path, Upstream(refuse))
    response = await post(proxy, REQUEST)
    assert response.status_code == 502
    assert "connection refused" in response.json()["error"]["message"]


async def test_the_proxy_refuses_calls_beyond_the_budget_with_402_but_still_answers_from_the_cache(
    tmp_path: Path,
) -> None:
    upstream = Upstream()
    proxy = proxy_for(tmp_path, upstream, Budget(max_calls=1))
    assert (await post(proxy, REQUEST)).status_code == 200
    refused = await post(proxy, {**REQUEST, "temperature": 0.9})
    assert refused.status_code == 402
    assert refused.json()["error"]["message"] == "evaluation proxy: the LLM call budget (1) is spent"
    assert (await post(proxy, REQUEST)).status_code == 200  # cached: free
    assert len(upstream.requests) == 1
    assert proxy.stats.refused_over_budget == 1


async def test_only_chat_completions_are_proxied(tmp_path: Path) -> None:
    response = await post(proxy_for(tmp_path, Upstream()), REQUEST, path="/models")
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("budget", "stats", "in_flight", "decision"),
    [
        (Budget(), LLMStats(upstream_calls=10**6), 50, "start"),
        # 9 calls per research: 0 + 9 ≤ 9 starts; a second in flight would make 18 > 9
        (Budget(max_calls=9), LLMStats(), 0, "start"),
        (Budget(max_calls=9), LLMStats(), 1, "wait"),
        (Budget(max_calls=20), LLMStats(upstream_calls=12), 0, "stop"),
        (Budget(max_calls=27), LLMStats(upstream_calls=9), 1, "start"),
        # tokens: the cost per call is not known yet: one research at a time
        (Budget(max_tokens=10_000), LLMStats(), 0, "start"),
        (Budget(max_tokens=10_000), LLMStats(), 1, "wait"),
        # 9 calls x 100 tokens per call (cached answers count for the estimate) = 900 per research
        (Budget(max_tokens=10_000), LLMStats(upstream_calls=9, upstream_tokens=900), 9, "start"),
        (Budget(max_tokens=10_000), LLMStats(upstream_calls=9, upstream_tokens=900), 10, "wait"),
        (Budget(max_tokens=1_500), LLMStats(upstream_calls=9, upstream_tokens=900), 0, "stop"),
        (Budget(max_tokens=1_500), LLMStats(cache_hits=9, cache_hit_tokens=900), 0, "start"),
        # an endpoint that reports no usage: the token limit cannot bind
        (Budget(max_tokens=1), LLMStats(upstream_calls=50), 7, "start"),
    ],
)
def test_the_budget_check_before_a_research(budget: Budget, stats: LLMStats, in_flight: int, decision: str) -> None:
    assert budget.decide(stats, in_flight=in_flight, calls_per_research=9) == decision


def test_the_budget_is_exhausted_at_its_limits() -> None:
    assert Budget(max_calls=3).exhausted(LLMStats(upstream_calls=2)) is None
    assert Budget(max_calls=3).exhausted(LLMStats(upstream_calls=3)) == "the LLM call budget (3) is spent"
    assert Budget(max_tokens=100).exhausted(LLMStats(upstream_tokens=100)) == "the LLM token budget (100) is spent"
    assert Budget().exhausted(LLMStats(upstream_calls=10**9)) is None


async def test_calls_in_flight_at_once_cannot_overrun_the_call_limit(tmp_path: Path) -> None:
    upstream = Upstream()
    proxy = proxy_for(tmp_path, upstream, Budget(max_calls=2))
    answers = await asyncio.gather(*(post(proxy, {**REQUEST, "temperature": t / 10}) for t in range(5)))
    assert sorted(a.status_code for a in answers) == [200, 200, 402, 402, 402]
    assert len(upstream.requests) == 2


def test_the_cache_key_leaves_out_the_prompt_fences_random_ids() -> None:
    fence = b"UNTRUSTED NEWS>>> fence=0123456789abcdef"
    fenced = b'{"content": "<<<BEGIN ' + fence + b"\\nx\\n<<<END " + fence + b'"}'
    again = fenced.replace(b"0123456789abcdef", b"fedcba9876543210")
    assert cache_key(fenced) == cache_key(again)
    assert cache_key(fenced) != cache_key(fenced.replace(b"\\nx\\n", b"\\ny\\n"))
