"""Whether another client's session exists is not told by the work a read does: reading, following, cancelling or
retrying another client's real session runs the same statements as an id that names no session (the owner is
compared in the query), and answers the same 404. Proven on the statements the store runs, not on a stopwatch."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from coordinator_persistence_fakes import RESEARCH, SESSIONS, coordinator_on_store, retry_path
from sqlalchemy import event
from sqlalchemy.engine import Engine

from service_kit.api_keys import hash_key

KEYS = {"alice": "sr_alice-key-0123456789abcdef", "bob": "sr_bob-key-0123456789abcdef"}
SERVICE_KEY = "sr_coordinator-service-key-0123"
API_KEYS = ",".join([f"{c}={hash_key(k)}" for c, k in KEYS.items()] + [f"coordinator={hash_key(SERVICE_KEY)}:service"])
SECURED = {"auth_mode": "api_key", "api_keys": API_KEYS, "service_api_key": SERVICE_KEY}
BODY = {"symbol": "600519.SH", "experts": ["technical_analyst", "macro_intelligence"], "analysis_date": "2025-06-30"}


BACKGROUND_READ = re.compile(r"resume_count FROM research_sessions WHERE research_sessions\.session_id IN \(")


def auth(client: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[client]}"}


@contextmanager
def statements_naming(session_id: str) -> Iterator[list[str]]:
    """The SQL statements run in the block whose parameters name ``session_id``, in order. The job worker's own
    fencing read of the sessions it runs (``… resume_count FROM … session_id IN (…)``, which can still fire for a
    research that has just answered) is the store's other work, not the request's, and is left out."""
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if session_id in repr(parameters) and not BACKGROUND_READ.search(statement):
            seen.append(re.sub(r"\s+", " ", statement))

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


async def test_another_clients_session_is_read_by_the_same_statements_as_an_unknown_id(fresh_url: str) -> None:
    async with coordinator_on_store(fresh_url, **SECURED) as client:
        bobs = (await client.post(RESEARCH, json=BODY, headers=auth("bob"))).json()["session_id"]
        unknown = str(uuid.uuid4())
        work: dict[str, list[str]] = {}
        answers: dict[str, list[tuple[int, str, str]]] = {}
        for name, session_id in (("theirs", bobs), ("unknown", unknown)):
            with statements_naming(session_id) as seen:
                calls = [
                    await client.get(f"{SESSIONS}/{session_id}", headers=auth("alice")),
                    await client.get(f"{SESSIONS}/{session_id}/events", headers=auth("alice")),
                    await client.post(f"{SESSIONS}/{session_id}/cancel", headers=auth("alice")),
                    await client.post(retry_path(session_id), headers=auth("alice")),
                ]
            work[name] = seen
            answers[name] = [
                (r.status_code, r.json()["code"], r.json()["detail"].replace(session_id, "ID")) for r in calls
            ]
        own = await client.get(f"{SESSIONS}/{bobs}", headers=auth("bob"))

    assert own.status_code == 200  # the session is there, for its owner
    assert answers["theirs"] == answers["unknown"]
    assert {status for status, _, _ in answers["theirs"]} == {404}
    assert work["theirs"] == work["unknown"]
    assert len(work["theirs"]) == 4  # one statement per request: nothing more is loaded for a session that exists


@pytest.mark.parametrize("client_id", [None, "bob"])
async def test_the_owner_and_an_admin_read_the_session_with_its_expert_rows(fresh_url: str, client_id: str) -> None:
    from coordinator.infrastructure.persistence.store import open_session_store

    async with coordinator_on_store(fresh_url, **SECURED) as client:
        bobs = (await client.post(RESEARCH, json=BODY, headers=auth("bob"))).json()["session_id"]
    sessions, close = await open_session_store(fresh_url)
    try:
        read = await sessions.get(bobs, client_id=client_id)
        hidden = await sessions.get(bobs, client_id="alice")
    finally:
        await close()
    assert read is not None
    assert set(read.expert_outcomes) == {"technical_analyst", "macro_intelligence"}
    assert hidden is None
