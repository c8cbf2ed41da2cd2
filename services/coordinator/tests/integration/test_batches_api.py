"""Batches through the real app on SQLite and the local PostgreSQL, with fake peers: 202 and ``Location``, the ranked
table, each item an ordinary session, unknown symbols as failed items, 400/413, cancel, privacy, paging, the
progress stream, chunks."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    parse_sse,
    verdict,
)
from coordinator_persistence_fakes import SESSIONS, coordinator_on_store

from coordinator.domain.exceptions import PeerResponseError, PeerUnavailableError
from coordinator.domain.model.enums import ExpertType
from service_kit.api_keys import hash_key

BATCHES = "/api/v1/coordinator/batches"
SYMBOLS = ["600519.SH", "000001.SZ", "300750.SZ", "601318.SH", "000858.SZ"]
SCORES = {"600519.SH": 0.2, "000001.SZ": 0.9, "300750.SZ": -0.4, "601318.SH": 0.5, "000858.SZ": 0.1}
KEYS = {"alice": "sr_alice-key-0123456789abcdef", "bob": "sr_bob-key-0123456789abcdef"}
SERVICE_KEY = "sr_coordinator-service-key-0123"
API_KEYS = ",".join([f"{c}={hash_key(k)}" for c, k in KEYS.items()] + [f"coordinator={hash_key(SERVICE_KEY)}:service"])


class ScoringJudge(FakeJudgeGateway):
    """The verdict's score (and action) from ``SCORES``."""

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.calls.append((symbol, debate_outcome, context))
        score = SCORES.get(symbol, 0.0)
        return {
            **verdict(symbol),
            "score": score,
            "universe_rank": (score + 1) / 2,
            "action": "BUY" if score > 0.3 else "HOLD",
        }


class Experts(FakeExpertGateway):
    """Refuses ``unknown`` symbols as the research service does (404 symbol_not_found); ``hold``: every call waits
    until ``release`` is set."""

    def __init__(self, unknown: set[str] | None = None, hold: bool = False) -> None:
        super().__init__()
        self.unknown = unknown or set()
        self.release = asyncio.Event()
        if not hold:
            self.release.set()
        self.entered = asyncio.Event()

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.entered.set()
        await self.release.wait()
        if symbol in self.unknown:
            self.calls.append((expert_type.value, symbol, options))
            raise PeerResponseError("research", 404, "symbol_not_found", f"no data for {symbol}")
        return await super().run_expert(expert_type, symbol, options)


def coordinator(
    database_url: str, experts: FakeExpertGateway | None = None, **settings: Any
) -> AbstractAsyncContextManager[httpx.AsyncClient]:
    return coordinator_on_store(
        database_url, research_gateway=experts or Experts(), judge_gateway=ScoringJudge(), **settings
    )


async def finished(client: httpx.AsyncClient, batch_id: str, **kwargs: Any) -> dict[str, Any]:
    for _ in range(400):
        body: dict[str, Any] = (await client.get(f"{BATCHES}/{batch_id}", **kwargs)).json()
        if body["status"] not in ("queued", "running"):
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"batch {batch_id} did not end: {body}")


async def test_a_batch_is_202_then_its_items_are_ranked_by_score_each_an_ordinary_session(fresh_url: str) -> None:
    async with coordinator(fresh_url, batch_chunk_size=2) as client:
        submitted = await client.post(BATCHES, json={"symbols": SYMBOLS, "analysis_date": "2025-06-30"})
        assert submitted.status_code == 202, submitted.text
        batch_id = submitted.json()["batch_id"]
        assert submitted.headers["Location"] == f"{BATCHES}/{batch_id}"
        assert submitted.json()["progress"] == {"done": 0, "total": 5, "failed": 0}
        assert submitted.json()["experts"] == [e.value for e in ExpertType]  # all five by default
        body = await finished(client, batch_id)
        session = (await client.get(f"{SESSIONS}/{body['items'][0]['session_id']}")).json()
        events = parse_sse((await client.get(f"{SESSIONS}/{session['session_id']}/events")).text)
        results = (await client.get(f"{BATCHES}/{batch_id}/results", params={"limit": 3})).json()
        rest = (await client.get(f"{BATCHES}/{batch_id}/results", params={"offset": 3})).json()

    assert body["status"] == "completed"
    assert body["progress"] == {"done": 5, "total": 5, "failed": 0}
    assert body["analysis_date"] == "2025-06-30"
    assert [i["symbol"] for i in body["items"]] == sorted(SYMBOLS, key=lambda s: -SCORES[s])
    assert body["items"][0] | {"session_id": None} == {
        "symbol": "000001.SZ",
        "session_id": None,
        "status": "completed",
        "action": "BUY",
        "score": 0.9,
        "universe_rank": 0.95,
        "position_percent": verdict("000001.SZ")["position_percent"],
        "confidence": verdict("000001.SZ")["confidence"],
    }
    assert session["status"] == "completed"
    assert session["symbol"] == "000001.SZ"
    assert session["analysis_date"] == "2025-06-30"
    assert set(session["expert_results"]) == {e.value for e in ExpertType}
    kinds = [e["event"] for e in events[1:]]
    assert kinds[:2] == ["session.queued", "session.started"]
    assert kinds[-3:] == ["debate.completed", "verdict.completed", "session.completed"]
    assert [int(e["id"]) for e in events[1:]] == list(range(1, len(events)))
    assert [i["symbol"] for i in results["items"] + rest["items"]] == SYMBOLS  # the order asked
    assert results["total"] == 5
    assert {i["http_status"] for i in results["items"]} == {200}
    assert results["items"][0]["research"]["verdict"]["score"] == SCORES[SYMBOLS[0]]


async def test_an_unknown_symbol_is_a_failed_item_not_a_failed_batch(fresh_url: str) -> None:
    async with coordinator(fresh_url, experts=Experts(unknown={"999999.SZ"})) as client:
        submitted = await client.post(
            BATCHES, json={"symbols": ["600519.SH", "999999.SZ"], "experts": ["technical_analyst"]}
        )
        body = await finished(client, submitted.json()["batch_id"])
        results = (await client.get(f"{BATCHES}/{body['batch_id']}/results")).json()

    assert body["status"] == "partial"
    assert body["progress"] == {"done": 2, "total": 2, "failed": 1}
    assert [(i["symbol"], i["status"], i["action"]) for i in body["items"]] == [
        ("600519.SH", "completed", "HOLD"),
        ("999999.SZ", "failed", None),
    ]
    failed = results["items"][1]
    assert (failed["http_status"], failed["problem"]["code"]) == (404, "symbol_not_found")
    assert failed["research"]["overall_status"] == "failed"


async def test_a_malformed_batch_is_a_400_and_more_than_1000_symbols_a_413(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        empty = await client.post(BATCHES, json={"symbols": []})
        bad = await client.post(BATCHES, json={"symbols": ["600519.SH", "not a symbol!"]})
        expert = await client.post(BATCHES, json={"symbols": ["600519.SH"], "experts": ["astrologer"]})
        day = await client.post(BATCHES, json={"symbols": ["600519.SH"], "analysis_date": "2025-02-30"})
        large = await client.post(BATCHES, json={"symbols": [f"{600000 + i}.SH" for i in range(1001)]})
        listed = (await client.get(BATCHES)).json()

    assert (empty.status_code, empty.json()["code"]) == (400, "symbols_empty")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_symbol")
    assert "symbols[1]" in bad.json()["detail"]
    assert (expert.status_code, expert.json()["code"]) == (400, "unknown_expert")
    assert day.status_code == 400
    assert (large.status_code, large.json()["code"]) == (413, "batch_too_large")
    assert "at most 1000 symbols" in large.json()["detail"]
    assert large.headers["content-type"] == "application/problem+json"
    assert listed["total"] == 0  # nothing was stored


async def test_a_cancelled_batch_ends_its_items_cancelled_and_a_finished_one_refuses(fresh_url: str) -> None:
    experts = Experts(hold=True)
    async with coordinator(fresh_url, experts=experts, batch_chunk_size=1, batch_concurrency=1) as client:
        batch_id = (await client.post(BATCHES, json={"symbols": SYMBOLS[:3]})).json()["batch_id"]
        await asyncio.wait_for(experts.entered.wait(), 5)
        cancelled = await client.post(f"{BATCHES}/{batch_id}/cancel")
        again = await client.post(f"{BATCHES}/{batch_id}/cancel")
        experts.release.set()
        await asyncio.sleep(0.3)
        after = (await client.get(f"{BATCHES}/{batch_id}")).json()
        events = parse_sse((await client.get(f"{SESSIONS}/{after['items'][0]['session_id']}/events")).text)
        other = (await client.post(BATCHES, json={"symbols": ["600519.SH"]})).json()["batch_id"]
        await finished(client, other)
        refused = await client.post(f"{BATCHES}/{other}/cancel")
        missing = await client.post(f"{BATCHES}/nope/cancel")

    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert again.status_code == 200
    assert after["status"] == "cancelled"
    assert {i["status"] for i in after["items"]} == {"cancelled"}  # the running chunk's end was not written
    assert [e["event"] for e in events[1:]][-1] == "session.cancelled"
    assert [e["event"] for e in events[1:]].count("session.cancelled") == 1
    assert (refused.status_code, refused.json()["code"]) == (409, "batch_finished")
    assert (missing.status_code, missing.json()["code"]) == (404, "batch_not_found")


async def test_a_batch_and_its_items_are_private_to_their_client(fresh_url: str) -> None:
    secured = {"auth_mode": "api_key", "api_keys": API_KEYS, "service_api_key": SERVICE_KEY}
    alice, bob = ({"Authorization": f"Bearer {KEYS[c]}"} for c in ("alice", "bob"))
    async with coordinator(fresh_url, **secured) as client:
        batch_id = (await client.post(BATCHES, json={"symbols": SYMBOLS[:2]}, headers=alice)).json()["batch_id"]
        body = await finished(client, batch_id, headers=alice)
        seen = await client.get(f"{BATCHES}/{batch_id}", headers=bob)
        results = await client.get(f"{BATCHES}/{batch_id}/results", headers=bob)
        events = await client.get(f"{BATCHES}/{batch_id}/events", headers=bob)
        cancel = await client.post(f"{BATCHES}/{batch_id}/cancel", headers=bob)
        item = await client.get(f"{SESSIONS}/{body['items'][0]['session_id']}", headers=bob)
        own = (await client.get(BATCHES, headers=alice)).json()
        theirs = (await client.get(BATCHES, headers=bob)).json()

    assert {seen.status_code, results.status_code, events.status_code, cancel.status_code} == {404}
    assert item.status_code == 404
    assert (own["total"], theirs["total"]) == (1, 0)


async def test_the_batches_are_paged_newest_first_and_the_events_end_with_one_terminal_event(fresh_url: str) -> None:
    async with coordinator(fresh_url, batch_chunk_size=1) as client:
        first = (await client.post(BATCHES, json={"symbols": SYMBOLS[:1]})).json()["batch_id"]
        second = (await client.post(BATCHES, json={"symbols": SYMBOLS})).json()["batch_id"]
        events = parse_sse((await client.get(f"{BATCHES}/{second}/events")).text)
        await finished(client, first)
        page = (await client.get(BATCHES, params={"limit": 1})).json()
        rest = (await client.get(BATCHES, params={"limit": 1, "offset": 1})).json()

    assert [b["batch_id"] for b in page["items"] + rest["items"]] == [second, first]
    assert page["total"] == 2
    kinds = [e["event"] for e in events]
    assert set(kinds[:-1]) == {"batch.progress"}
    assert kinds[-1] == "batch.completed"
    assert events[-1]["data"] == {"status": "completed", "done": 5, "total": 5, "failed": 0}
    done = [e["data"]["done"] for e in events]
    assert done == sorted(done)


async def test_a_reconnection_after_a_batchs_terminal_event_is_204(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        batch_id = (await client.post(BATCHES, json={"symbols": SYMBOLS[:2]})).json()["batch_id"]
        events = parse_sse((await client.get(f"{BATCHES}/{batch_id}/events")).text)
        terminal = events[-1]["id"]
        again = await client.get(f"{BATCHES}/{batch_id}/events", headers={"Last-Event-ID": terminal})
        # a client that saw every item end but not the batch's end is told the end
        missed = parse_sse((await client.get(f"{BATCHES}/{batch_id}/events", headers={"Last-Event-ID": "2"})).text)
        garbage = await client.get(f"{BATCHES}/{batch_id}/events", headers={"Last-Event-ID": "9" * 5000})

    assert (events[-1]["event"], terminal) == ("batch.completed", "3")  # past the progress ids (items ended)
    assert all(int(e["id"]) <= 2 for e in events[:-1])
    assert (again.status_code, again.content) == (204, b"")
    assert [(e["event"], e["id"]) for e in missed] == [("batch.completed", "3")]
    assert (garbage.status_code, garbage.json()["code"]) == (400, "invalid_request")


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
async def test_every_item_runs_once_whatever_the_chunk_size(fresh_url: str, chunk_size: int) -> None:
    experts = Experts()
    async with coordinator(fresh_url, experts=experts, batch_chunk_size=chunk_size) as client:
        batch_id = (await client.post(BATCHES, json={"symbols": SYMBOLS, "experts": ["macro_intelligence"]})).json()[
            "batch_id"
        ]
        body = await finished(client, batch_id)

    assert body["status"] == "completed"
    assert sorted(c[1] for c in experts.calls) == sorted(SYMBOLS)


async def test_a_research_service_that_is_down_fails_the_items_in_words_and_ends_the_batch(fresh_url: str) -> None:
    down = PeerUnavailableError("research", "research is not reachable at http://research.test (connection refused)")
    experts = FakeExpertGateway(failures={e.value: down for e in ExpertType})
    async with coordinator(fresh_url, experts=experts) as client:
        batch_id = (await client.post(BATCHES, json={"symbols": SYMBOLS[:2]})).json()["batch_id"]
        body = await finished(client, batch_id)
        results = (await client.get(f"{BATCHES}/{batch_id}/results")).json()

    assert body["status"] == "failed"
    assert body["progress"] == {"done": 2, "total": 2, "failed": 2}
    item = results["items"][0]
    assert (item["http_status"], item["problem"]["code"]) == (500, "all_experts_failed")
    envelope = item["research"]["expert_results"]["technical_analyst"]
    assert envelope["status"] == "failed"
    assert "not reachable" in envelope["error"]


async def test_a_batch_holds_every_items_budget_and_gives_it_back_as_items_end_or_are_cancelled(
    fresh_url: str,
) -> None:
    """Issue 53: with CLIENT_DAILY_TOKENS worth 3 items' budgets, a batch of 5 is refused before anything is stored;
    a batch of 3 holds the whole quota until it is cancelled (or its items end, spending nothing here)."""
    experts = Experts(hold=True)
    quota = {"client_daily_tokens": 3_000, "rate_limits_enabled": True, "rate_limit_writes": "1000/minute"}
    async with coordinator(fresh_url, experts=experts, batch_chunk_size=1, batch_concurrency=1, **quota) as client:
        too_many = await client.post(BATCHES, json={"symbols": SYMBOLS, "token_budget": 1_000})
        listed = (await client.get(BATCHES)).json()
        held = (await client.post(BATCHES, json={"symbols": SYMBOLS[:3], "token_budget": 1_000})).json()
        while_held = await client.post(BATCHES, json={"symbols": SYMBOLS[:1], "token_budget": 1_000})
        await client.post(f"{BATCHES}/{held['batch_id']}/cancel")
        experts.release.set()
        after_cancel = await client.post(BATCHES, json={"symbols": SYMBOLS[:3], "token_budget": 1_000})
        await finished(client, after_cancel.json()["batch_id"])
        after_end = await client.post(BATCHES, json={"symbols": SYMBOLS[:3], "token_budget": 1_000})

    assert (too_many.status_code, too_many.json()["code"]) == (429, "token_quota_exceeded"), too_many.text
    assert int(too_many.headers["Retry-After"]) > 0
    assert listed["total"] == 0  # refused before anything was stored
    assert (while_held.status_code, while_held.json()["code"]) == (429, "token_quota_exceeded")
    assert after_cancel.status_code == 202, after_cancel.text
    assert after_end.status_code == 202, after_end.text


async def test_a_batch_writes_every_item_in_the_language_it_names(fresh_url: str) -> None:
    """Issue 51: each item is a session in the batch's language; every stage's bulk call asks for it."""
    experts, debate, judge = Experts(), FakeDebateGateway(), ScoringJudge()
    async with coordinator_on_store(
        fresh_url, research_gateway=experts, debate_gateway=debate, judge_gateway=judge, batch_chunk_size=2
    ) as client:
        refused = await client.post(BATCHES, json={"symbols": SYMBOLS[:2], "language": "de"})
        submitted = await client.post(
            BATCHES, json={"symbols": SYMBOLS[:3], "analysis_date": "2025-06-30", "language": "en"}
        )
        assert submitted.status_code == 202, submitted.text
        body = await finished(client, submitted.json()["batch_id"])
        sessions = [(await client.get(f"{SESSIONS}/{item['session_id']}")).json() for item in body["items"]]

    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_language")
    assert [s["language"] for s in sessions] == ["en", "en", "en"]
    assert {options.language for _, _, options in experts.calls} == {"en"}  # type: ignore[union-attr]
    assert len(experts.calls) == 3 * len(ExpertType)
    assert [asked.get("language") for asked in debate.asked] == ["en", "en", "en"]
    assert [(context or {}).get("language") for _, _, context in judge.calls] == ["en", "en", "en"]
