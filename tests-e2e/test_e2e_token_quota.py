"""The daily token quota holds under concurrency (issue 53), against real processes on the fake OpenAI-compatible
server: one client posts 20 researches at once with ``Prefer: respond-async`` against ``CLIENT_DAILY_TOKENS`` worth
3 of their budgets: 3 are accepted and 17 refused at submission (``429 token_quota_exceeded`` with
``Retry-After``), the fake server counts at most the quota, ``GET /usage`` says what it counted, and what the three
did not spend is given back when they end. In memory (one coordinator) and in Redis (two coordinators sharing it,
the submissions split between them; skipped, saying so, without a Redis server)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import RESEARCH, SESSIONS, expect, expect_problem

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import Stack, running_stack
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

CALL_TOKENS = 1_010
"""What every model call uses on the fake server (1,000 in, 10 out)."""
RESEARCH_CALLS = 5
"""One expert, the debate's bull, bear and resolution, the judge."""
BUDGET = 6_000
"""Each research's token budget (≥ the 5,050 it uses: none is stopped by it), and what it holds of the quota."""
QUOTA = 3 * BUDGET
SUBMISSIONS = 20
CLIENT_KEY, SERVICE_KEY = new_key(), new_key()
REQUEST = {"symbol": "600519.SH", "experts": ["technical_analyst"], "token_budget": BUDGET}


def _redis_reachable() -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", 6379)) == 0


def _script() -> dict[str, Any]:
    base = replies.script()
    for rule in base["rules"]:
        rule["usage"] = {"prompt_tokens": 1_000, "completion_tokens": 10}
    return base


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("quota-llm"), _script()) as fake:
        yield fake


@pytest.fixture(
    params=[
        pytest.param(None, id="memory"),
        pytest.param(
            "redis://127.0.0.1:6379/14",
            id="redis-two-coordinators",
            marks=pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379"),
        ),
    ]
)
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM
) -> Iterator[Stack]:
    client_id = f"tokens-{uuid.uuid4().hex[:12]}"  # its own counts in a shared Redis
    keys = f"{client_id}={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service"
    common = {"AUTH_MODE": "api_key", "API_KEYS": keys, "RATE_LIMIT_WRITES": "1000/minute"}
    if request.param:
        common["REDIS_URL"] = request.param
    coordinator = {"SERVICE_API_KEY": SERVICE_KEY, "CLIENT_DAILY_TOKENS": str(QUOTA), "RESEARCH_CONCURRENCY": "20"}
    llm = fake_llm.env(REPORT_LANGUAGE="en")
    coordinators = 2 if request.param else 1
    per_service = {"research": llm, "debate": llm, "judge": llm, "coordinator": coordinator}
    per_service["coordinator-2"] = coordinator
    fake_llm.client.reset(_script())
    workdir = tmp_path_factory.mktemp("quota-stack")
    with running_stack(workdir, common_env=common, per_service_env=per_service, coordinators=coordinators) as running:
        yield running


def _client(url: str) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {CLIENT_KEY}", "Prefer": "respond-async"}
    limits = httpx.Limits(max_connections=SUBMISSIONS)
    return httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits)


async def _submit_at_once(urls: list[str]) -> list[httpx.Response]:
    clients = [_client(url) for url in urls]
    try:
        posts = (clients[i % len(clients)].post(RESEARCH, json=REQUEST) for i in range(SUBMISSIONS))
        return list(await asyncio.gather(*posts))
    finally:
        for client in clients:
            await client.aclose()


def _wait_until_ended(url: str, session_ids: list[str]) -> None:
    headers = {"Authorization": f"Bearer {CLIENT_KEY}"}
    deadline = time.monotonic() + 120
    with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
        for session_id in session_ids:
            while expect(http.get(f"{SESSIONS}/{session_id}"), 200)["status"] in ("queued", "running"):
                assert time.monotonic() < deadline, f"session {session_id} did not end"
                time.sleep(0.2)


def test_twenty_async_submissions_spend_at_most_the_quota(stack: Stack, fake_llm: FakeLLM) -> None:
    urls = stack.coordinator_urls
    answers = asyncio.run(_submit_at_once(urls))

    assert Counter(a.status_code for a in answers) == {202: 3, 429: SUBMISSIONS - 3}
    for refused in (a for a in answers if a.status_code == 429):
        expect_problem(refused, 429, "token_quota_exceeded")
        assert 0 < int(refused.headers["Retry-After"]) <= 86_400
    accepted = [(a.request.url, a.json()["session_id"]) for a in answers if a.status_code == 202]
    for url in urls:
        _wait_until_ended(url, [session_id for asked, session_id in accepted if str(asked).startswith(url)])

    calls = fake_llm.client.calls()
    spent = sum(call["prompt_tokens"] + call["completion_tokens"] for call in calls)
    assert len(calls) == 3 * RESEARCH_CALLS
    assert spent == 3 * RESEARCH_CALLS * CALL_TOKENS <= QUOTA  # the fake server counted at most the quota

    reports = []
    for url in urls:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {CLIENT_KEY}"}, timeout=30) as http:
            reports.append(expect(http.get("/api/v1/coordinator/usage"), 200))
    reported = sum(r["total"]["input_tokens"] + r["total"]["output_tokens"] for r in reports)
    assert reported == spent, json.dumps(reports)  # the usage report says what was spent, not what was held

    # What the three did not spend was given back: 18,000 - 15,150 = 2,850 tokens are left.
    left = QUOTA - spent
    with httpx.Client(base_url=urls[-1], headers={"Authorization": f"Bearer {CLIENT_KEY}"}, timeout=60) as http:
        expect_problem(http.post(RESEARCH, json={**REQUEST, "token_budget": left + 1}), 429, "token_quota_exceeded")
        small = {**REQUEST, "token_budget": left, "skip_debate": True}
        body = expect(http.post(RESEARCH, json=small), 200)
    assert body["usage"]["token_budget"] == left
