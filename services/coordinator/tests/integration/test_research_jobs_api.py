"""Research as a job, through the real app on SQLite and the local PostgreSQL: ``Prefer: respond-async`` → 202 and
links; the session's event stream (snapshot, history in order, terminal event; replay after ``Last-Event-ID`` or
``?after=``); two coordinators on one database; idempotency; the queue's limit; cancel."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
import pytest
from coordinator_fakes import (
    FakeExpertGateway,
    parse_sse,
)
from coordinator_persistence_fakes import RESEARCH, SESSIONS, coordinator_on_store, local_postgres_database, retry_path

from coordinator.domain.model.enums import ExpertType

ASYNC = {"Prefer": "respond-async"}
BODY = {"symbol": "600519.SH", "experts": ["technical_analyst", "macro_intelligence"]}


class SlowExperts(FakeExpertGateway):
    """Each expert call waits ``delay`` seconds (or until ``release`` is set, when ``hold``); counts calls and
    in-flight calls that were cancelled."""

    def __init__(self, delay: float = 0.0, hold: bool = False) -> None:
        super().__init__()
        self.delay, self.release, self.cancelled = delay, asyncio.Event(), 0
        if not hold:
            self.release.set()
        self.entered = asyncio.Event()

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.entered.set()
        try:
            await asyncio.sleep(self.delay)
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return await super().run_expert(expert_type, symbol, options)


def coordinator(
    database_url: str, experts: FakeExpertGateway | None = None, **settings: Any
) -> AbstractAsyncContextManager[httpx.AsyncClient]:
    """One coordinator (its own instance in the store, its own jobs, LangGraph's checkpointer) on ``database_url``."""
    return coordinator_on_store(database_url, checkpointed=True, research_gateway=experts, **settings)


async def stream(
    client: httpx.AsyncClient, session_id: str, **kwargs: Any
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    response = await client.get(f"{SESSIONS}/{session_id}/events", **kwargs)
    return response, parse_sse(response.text)


async def test_an_async_research_is_202_then_its_events_come_in_stage_order_to_the_end(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        submitted = await client.post(RESEARCH, json=BODY, headers=ASYNC)
        assert submitted.status_code == 202, submitted.text
        body = submitted.json()
        session_id = body["session_id"]
        assert submitted.headers["Location"] == f"{SESSIONS}/{session_id}"
        assert submitted.headers["Preference-Applied"] == "respond-async"
        assert body["status"] == "queued"
        assert body["links"] == {
            "self": f"{SESSIONS}/{session_id}",
            "events": f"{SESSIONS}/{session_id}/events",
            "cancel": f"{SESSIONS}/{session_id}/cancel",
        }
        response, events = await stream(client, session_id)
        _, late = await stream(client, session_id)
        stored = (await client.get(f"{SESSIONS}/{session_id}")).json()

    assert response.headers["content-type"].startswith("text/event-stream")
    assert events[0]["event"] == "snapshot"
    assert events[0]["id"] is None
    kinds = [e["event"] for e in events[1:]]
    assert kinds[:2] == ["session.queued", "session.started"]
    for expert in ("technical_analyst", "macro_intelligence"):
        index = [i for i, e in enumerate(events) if e["data"].get("expert") == expert]
        assert [events[i]["event"] for i in index] == ["expert.started", "expert.completed"]
    assert kinds[-5:] == [
        "debate.started",
        "debate.completed",
        "verdict.started",
        "verdict.completed",
        "session.completed",
    ]
    assert [int(e["id"]) for e in events[1:]] == list(range(1, len(events)))  # numbered from 1, no gap
    completed = next(e["data"] for e in events if e["event"] == "expert.completed")
    assert {"signal", "confidence", "as_of", "data_gaps", "duration_ms", "attempts"} <= set(completed)
    verdict = next(e["data"] for e in events if e["event"] == "verdict.completed")
    assert verdict["action"] == "BUY"
    assert {"position", "stop", "target", "horizon"} <= set(verdict)
    assert late[1:] == events[1:]  # a late subscriber gets the identical history
    assert late[0]["data"]["status"] == "completed"
    assert (stored["status"], stored["resume_count"]) == ("completed", 0)
    assert stored["verdict"]["action"] == "BUY"


async def test_a_subscriber_resumes_after_last_event_id_or_after(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        session_id = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        _, everything = await stream(client, session_id)
        _, by_header = await stream(client, session_id, headers={"Last-Event-ID": "3"})
        _, by_query = await stream(client, session_id, params={"after": 3})
        _, by_both = await stream(client, session_id, params={"after": 5}, headers={"Last-Event-ID": "3"})
    rest = [e for e in everything[1:] if int(e["id"]) > 3]
    assert by_header[1:] == rest
    assert by_query[1:] == rest
    assert by_both[1:] == [e for e in rest if int(e["id"]) > 5]  # the query parameter wins
    assert by_header[0]["event"] == "snapshot"


async def test_a_reconnection_after_the_terminal_event_is_204_and_the_end_is_told_once(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        session_id = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        _, events = await stream(client, session_id)  # to the end, as an EventSource reads it
        terminal = events[-1]["id"]
        again, _ = await stream(client, session_id, headers={"Last-Event-ID": terminal})
        past, _ = await stream(client, session_id, headers={"Last-Event-ID": str(int(terminal) + 7)})
        _, before_end = await stream(client, session_id, headers={"Last-Event-ID": str(int(terminal) - 1)})
        _, by_query = await stream(client, session_id, params={"after": terminal})  # asked for, not a reconnection

    assert [e["event"] for e in events].count("session.completed") == 1
    assert (again.status_code, again.content, past.status_code) == (204, b"", 204)
    assert [(e["id"], e["event"]) for e in before_end[1:]] == [(terminal, "session.completed")]
    assert by_query[0]["event"] == "snapshot"


@pytest.mark.parametrize("garbage", ["9" * 5000, "²", "٣", "12a", "-1", "1e3", "9" * 19])
async def test_a_last_event_id_that_is_no_event_number_is_a_400_problem(
    fresh_url: str, garbage: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with coordinator(fresh_url) as client:
        session_id = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        response = await client.get(f"{SESSIONS}/{session_id}/events", headers=[(b"Last-Event-ID", garbage.encode())])
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "invalid_request"
    assert len(response.json()["detail"]) < 200
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_an_unknown_session_has_no_event_stream(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        response = await client.get(f"{SESSIONS}/6f1c2d3e-0000-4000-8000-000000000000/events")
    assert (response.status_code, response.json()["code"]) == (404, "session_not_found")


async def test_without_prefer_the_synchronous_contract_is_unchanged_and_runs_as_a_job(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        answered = await client.post(RESEARCH, json=BODY)
        body = answered.json()
        _, events = await stream(client, body["session_id"])
    assert answered.status_code == 200
    assert set(body) == {
        "session_id",
        "symbol",
        "overall_status",
        "expert_results",
        "debate_outcome",
        "verdict",
        "retry_count",
        "analysis_date",
    } or set(body) >= {"session_id", "overall_status", "verdict"}
    assert events[-1]["event"] == "session.completed"
    assert events[1]["event"] == "session.queued"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with local_postgres_database() as url:
        yield url


@pytest.mark.postgres
async def test_two_coordinators_on_one_postgresql_submit_on_a_stream_on_b(postgres_url: str) -> None:
    slow = SlowExperts(delay=0.3)
    async with coordinator(postgres_url, slow) as a, coordinator(postgres_url, slow) as b:
        session_id = (await a.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        _, on_b = await stream(b, session_id)
        _, on_a = await stream(a, session_id)
    assert on_b[-1]["event"] == "session.completed"
    assert on_b[1:] == on_a[1:]
    assert on_b[-2]["event"] == "verdict.completed"


async def test_the_same_idempotency_key_and_body_name_the_same_session(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        headers = {**ASYNC, "Idempotency-Key": "k-1"}
        first = await client.post(RESEARCH, json=BODY, headers=headers)
        again = await client.post(RESEARCH, json=BODY, headers=headers)
        other = await client.post(RESEARCH, json={**BODY, "experts": ["technical_analyst"]}, headers=headers)
        listed = (await client.get(SESSIONS)).json()
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["session_id"] == first.json()["session_id"]
    assert other.status_code == 409
    assert other.json()["code"] == "idempotency_key_reused"
    assert other.json()["session_id"] == first.json()["session_id"]
    assert listed["total"] == 1  # no second run


async def test_beyond_the_queue_limit_a_submission_is_503_with_retry_after(fresh_url: str) -> None:
    held = SlowExperts(hold=True)
    async with coordinator(fresh_url, held, research_concurrency=1, research_queue_limit=1) as client:
        running = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()
        await asyncio.wait_for(held.entered.wait(), 10)
        queued = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()
        refused = await client.post(RESEARCH, json=BODY, headers=ASYNC)
        detail = (await client.get(f"{SESSIONS}/{queued['session_id']}")).json()
        held.release.set()
        _, events = await stream(client, queued["session_id"])
        statuses = {s["status"] for s in (await client.get(SESSIONS)).json()["items"]}
    assert running["status"] == "queued"
    assert queued["queue_position"] == 1
    assert detail["status"] == "queued"
    assert detail["queue_position"] == 1
    assert refused.status_code == 503
    assert refused.json()["code"] == "queue_full"
    assert int(refused.headers["Retry-After"]) > 0
    assert events[-1]["event"] == "session.completed"
    assert statuses == {"completed"}  # nothing left running or queued


async def test_cancel_stops_the_peer_calls_and_ends_the_session_cancelled(fresh_url: str) -> None:
    held = SlowExperts(hold=True)
    async with coordinator(fresh_url, held) as client:
        session_id = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        await asyncio.wait_for(held.entered.wait(), 10)
        cancelled = await client.post(f"{SESSIONS}/{session_id}/cancel")
        again = await client.post(f"{SESSIONS}/{session_id}/cancel")
        _, events = await stream(client, session_id)
        stored = (await client.get(f"{SESSIONS}/{session_id}")).json()
        held.release.set()
        done = (await client.post(RESEARCH, json=BODY)).json()["session_id"]
        finished = await client.post(f"{SESSIONS}/{done}/cancel")
        retried = await client.post(retry_path(session_id), headers=ASYNC)
    assert (cancelled.status_code, cancelled.json()["status"]) == (202, "cancelled")
    assert (again.status_code, again.json()["status"]) == (202, "cancelled")  # idempotent
    assert held.cancelled == 2  # both in-flight expert calls
    assert events[-1]["event"] == "session.cancelled"
    assert stored["status"] == "cancelled"
    assert (finished.status_code, finished.json()["code"]) == (409, "session_finished")
    assert retried.status_code == 202  # a cancelled session can be retried


async def test_a_stream_holds_one_of_its_clients_slots_until_it_ends(sqlite_only_url: str) -> None:
    """EVENT_STREAMS_PER_CLIENT=1: a second stream while the first is open is 429 with Retry-After (the connection
    closed after it); once the first has ended, the slot is free again."""
    held = SlowExperts(hold=True)
    async with coordinator(sqlite_only_url, held, event_streams_per_client=1) as client:
        session_id = (await client.post(RESEARCH, json=BODY, headers=ASYNC)).json()["session_id"]
        following = asyncio.create_task(stream(client, session_id))  # open until the research ends
        await asyncio.sleep(0.5)
        refused = await asyncio.wait_for(client.get(f"{SESSIONS}/{session_id}/events"), 10)
        held.release.set()
        first, _ = await asyncio.wait_for(following, 10)
        again, events = await stream(client, session_id)
    assert first.status_code == 200
    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_streams")
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.headers["Connection"] == "close"
    assert again.status_code == 200
    assert events[-1]["event"] == "session.completed"
