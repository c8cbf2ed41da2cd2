"""The daily research quota under concurrency, against a real research process (AUTH_MODE=api_key): 20 expert
researches posted at once by a client with a quota of 5 give exactly 5 answers and 15 ``429``, with the counters
in memory and in Redis; researches refused as a client mistake first are given back."""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import ServiceProcess, running_service

pytestmark = pytest.mark.e2e

QUOTA = 5
EXPERT = "/api/v1/research/experts/technical_analyst"


def _redis_reachable() -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", 6379)) == 0


BACKENDS = [
    pytest.param(None, id="memory"),
    pytest.param(
        "redis://127.0.0.1:6379/14",
        id="redis",
        marks=pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379"),
    ),
]


@pytest.fixture(params=BACKENDS)
def research(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[ServiceProcess, str]]:
    key = new_key()
    client_id = f"quota-{uuid.uuid4().hex[:12]}"  # its own counters in a shared Redis
    limits = {"RESEARCH_DAILY_QUOTA": str(QUOTA), "RATE_LIMIT_WRITES": "1000/minute"}
    redis = {"REDIS_URL": request.param} if request.param else {}
    keys = f"{client_id}={hash_key(key)}"
    with running_service("research", tmp_path, AUTH_MODE="api_key", API_KEYS=keys, **limits, **redis) as service:
        yield service, key


async def _post_at_once(url: str, key: str, bodies: list[dict[str, str]]) -> list[int]:
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=len(bodies))
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits) as http:
        answers = await asyncio.gather(*(http.post(EXPERT, json=body) for body in bodies))
    return [answer.status_code for answer in answers]


def test_twenty_concurrent_researches_with_a_quota_of_five_run_exactly_five(
    research: tuple[ServiceProcess, str],
) -> None:
    service, key = research
    refused = asyncio.run(_post_at_once(service.url, key, [{"symbol": "!!"}] * 3))
    assert refused == [400] * 3  # client mistakes: given back

    statuses = Counter(asyncio.run(_post_at_once(service.url, key, [{"symbol": "600519.SH"}] * 20)))

    assert statuses == {200: QUOTA, 429: 20 - QUOTA}
