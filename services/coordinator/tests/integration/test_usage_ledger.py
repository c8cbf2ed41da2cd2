"""The usage ledger (``llm_usage_records``) on SQLite and on the local PostgreSQL: a session's stages recorded again
replace their rows, and the totals sum by client, day and model, one client's or every client's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from coordinator_persistence_fakes import local_postgres_database

from coordinator.domain.ports.usage_ledger import UsageRecord
from coordinator.infrastructure.persistence.store import open_session_store
from shared_contracts.usage import LLMUsage

DAY, NEXT = date(2026, 11, 26), date(2026, 11, 27)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'ledger.db'}"
        return
    with local_postgres_database() as url:
        yield url


def usage(calls: int, tokens_in: int, tokens_out: int, model: str = "m1", *, estimated: bool = False) -> LLMUsage:
    return LLMUsage(llm_calls=calls, input_tokens=tokens_in, output_tokens=tokens_out, estimated=estimated, model=model)


async def test_totals_sum_by_client_day_and_model(database_url: str) -> None:
    ledger, close = await open_session_store(database_url)
    try:
        await ledger.record_usage(
            [
                UsageRecord("s1", "technical_analyst", "alice", DAY, usage(1, 100, 10)),
                UsageRecord("s1", "debate", "alice", DAY, usage(3, 300, 30, estimated=True)),
                UsageRecord("s2", "judge", "alice", NEXT, usage(1, 50, 5, model="m2")),
                UsageRecord("s3", "judge", "bob", DAY, usage(1, 7, 1)),
            ]
        )
        await ledger.record_usage([UsageRecord("s1", "debate", "alice", DAY, usage(3, 400, 40))])  # replaced
        alice = await ledger.usage_totals(client_id="alice", start=DAY, end=NEXT)
        everyone = await ledger.usage_totals(client_id=None, start=DAY, end=DAY)
    finally:
        await close()

    assert [(t.day, t.model, t.usage) for t in alice] == [
        (DAY, "m1", usage(4, 500, 50)),
        (NEXT, "m2", usage(1, 50, 5, model="m2")),
    ]
    assert [(t.client_id, t.usage.llm_calls) for t in everyone] == [("alice", 4), ("bob", 1)]
