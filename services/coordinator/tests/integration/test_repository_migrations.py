"""The Alembic migrations shipped in the package: they build exactly the models' schema, run at every
start without harm, and ``open_session_store`` is the one call the lifespan makes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from coordinator_persistence_fakes import make_session, sqlite_url
from sqlalchemy import Connection, inspect, text

from coordinator.domain.exceptions import SessionStoreUnavailableError
from coordinator.infrastructure.persistence.engine import build_engine, normalize_database_url
from coordinator.infrastructure.persistence.migrate import alembic_config, run_migrations
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.infrastructure.persistence.tables import Base, UTCDateTime


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_migrations_build_exactly_the_models_schema(fresh_url: str) -> None:
    await run_migrations(fresh_url)
    await run_migrations(fresh_url)  # every start runs them: the second run is a no-op

    engine = build_engine(fresh_url)
    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
    finally:
        await engine.dispose()
    assert {
        "research_sessions",
        "research_session_experts",
        "research_session_events",
        "coordinator_instances",
        "alembic_version",
    } <= tables
    assert version == "0011_session_language"


_OLD_SESSIONS = sa.table(
    "research_sessions",
    *(sa.column(name, sa.String()) for name in ("session_id", "symbol", "status", "debate_status", "judge_status")),
    sa.column("experts", sa.JSON()),
    sa.column("options", sa.JSON()),
    sa.column("skip_debate", sa.Boolean()),
    sa.column("retry_count", sa.Integer()),
    sa.column("created_at", UTCDateTime()),
    sa.column("updated_at", UTCDateTime()),
)


async def test_sessions_stored_before_dates_were_recorded_take_their_technical_option(fresh_url: str) -> None:
    """Migration 0003: a session's analysis date was its technical analyst's option; without one, none."""
    options = {
        "dated": {"technical_analyst": {"analysis_date": "2025-01-02"}, "financial_auditor": {"limit": 5}},
        "no_technical": {"macro_intelligence": {}},
        "null_option": {"technical_analyst": {"analysis_date": None}},
    }
    now = datetime.now(UTC)
    engine = build_engine(fresh_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0002_session_owners"))
            await conn.execute(
                _OLD_SESSIONS.insert(),
                [
                    {
                        "session_id": name,
                        "symbol": "600519.SH",
                        "experts": list(opts),
                        "options": opts,
                        "skip_debate": False,
                        "status": "completed",
                        "retry_count": 0,
                        "debate_status": "success",
                        "judge_status": "success",
                        "created_at": now,
                        "updated_at": now,
                    }
                    for name, opts in options.items()
                ],
            )
        await run_migrations(engine)
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT session_id, analysis_date FROM research_sessions"))).all()
    finally:
        await engine.dispose()
    assert dict(rows) == {"dated": "2025-01-02", "no_technical": None, "null_option": None}


async def test_0007_reads_stored_refusals_into_failures_and_keeps_a_key_on_the_newest_session(fresh_url: str) -> None:
    """Migration 0007: a failed expert's refusal is read out of its error text; a key held twice stays on the
    newest session (the index is unique from then on)."""
    now = datetime.now(UTC)
    errors = {"technical_analyst": "research 422 insufficient_history: too little data", "macro_intelligence": "x"}
    engine = build_engine(fresh_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0006_session_jobs"))
            sessions = [
                {"session_id": name, "symbol": "600519.SH", "experts": list(errors), "options": {},
                 "skip_debate": False, "status": "partial", "retry_count": 0, "debate_status": "success",
                 "judge_status": "success", "created_at": now.replace(second=second), "updated_at": now}
                for name, second in (("older", 1), ("newer", 2))
            ]  # fmt: skip
            await conn.execute(_OLD_SESSIONS.insert(), sessions)
            await conn.execute(text("UPDATE research_sessions SET client_id = 'c', idempotency_key = 'k'"))
            experts = sa.table(
                "research_session_experts",
                *(sa.column(name, sa.String()) for name in ("session_id", "expert", "status", "error")),
                sa.column("attempts", sa.Integer()),
                sa.column("recorded_at", UTCDateTime()),
            )
            rows = [
                {"session_id": "older", "expert": e, "status": "failed", "error": m, "attempts": 1, "recorded_at": now}
                for e, m in errors.items()
            ]
            await conn.execute(experts.insert(), rows)
        await run_migrations(engine)
        repository = SqlAlchemySessionRepository(engine)
        older = await repository.get("older")
        newer = await repository.get("newer")
        await repository.close()
    finally:
        await engine.dispose()
    assert older is not None
    assert newer is not None
    failure = older.expert_outcomes["technical_analyst"].failure
    assert failure is not None
    assert (failure.status, failure.code) == (422, "insufficient_history")
    assert older.expert_outcomes["macro_intelligence"].failure is None
    assert (older.idempotency_key, newer.idempotency_key) == (None, "k")


async def test_open_session_store_creates_the_sqlite_file_and_its_directory(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    db_file = Path(normalize_database_url(url).database or "")
    assert not await asyncio.to_thread(db_file.parent.exists)

    repository, close = await open_session_store(url)
    try:
        await repository.ping()
    finally:
        await close()
    assert await asyncio.to_thread(db_file.is_file)


async def test_a_restart_marks_sessions_left_running_as_interrupted(fresh_url: str) -> None:
    repository, close = await open_session_store(fresh_url)
    running, partial = make_session(status="running"), make_session(status="partial")
    await repository.create(running)
    await repository.create(partial)
    await close()  # the coordinator "dies" with one session running

    repository, close = await open_session_store(fresh_url)
    try:
        got_running, got_partial = await repository.get(running.session_id), await repository.get(partial.session_id)
    finally:
        await close()
    assert got_running is not None
    assert got_partial is not None
    assert (got_running.status, got_partial.status) == ("interrupted", "partial")


async def test_in_memory_sqlite_works_for_throwaway_runs() -> None:
    repository, close = await open_session_store("sqlite+aiosqlite://")
    try:
        session = make_session()
        await repository.create(session)
        assert await repository.get(session.session_id) is not None
    finally:
        await close()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:///data/c.db", "sqlite+aiosqlite:///data/c.db"),
        ("postgres://u:p@db:5432/c", "postgresql+asyncpg://u:***@db:5432/c"),
        ("postgresql://u@db/c", "postgresql+asyncpg://u@db/c"),
        ("postgresql+asyncpg://u@db/c", "postgresql+asyncpg://u@db/c"),
    ],
)
def test_database_urls_are_normalized_to_async_drivers(given: str, expected: str) -> None:
    assert normalize_database_url(given).render_as_string(hide_password=True) == expected


@pytest.mark.parametrize("given", ["mysql+aiomysql://u@db/c", "postgresql+psycopg2://u@db/c"])
def test_unsupported_database_urls_are_refused_naming_the_variable(given: str) -> None:
    with pytest.raises(ValueError, match="DATABASE_URL"):
        normalize_database_url(given)


async def test_ping_reports_an_unreachable_database_as_unavailable() -> None:
    engine = build_engine("postgresql+asyncpg://postgres@127.0.0.1:1/nowhere")
    try:
        with pytest.raises(SessionStoreUnavailableError) as caught:
            await SqlAlchemySessionRepository(engine).ping()
    finally:
        await engine.dispose()
    assert caught.value.code == "session_store_unavailable"


async def test_ping_fails_on_a_database_without_the_schema(tmp_path: Path) -> None:
    engine = build_engine(sqlite_url(tmp_path))  # never migrated
    try:
        with pytest.raises(SessionStoreUnavailableError):
            await SqlAlchemySessionRepository(engine).ping()
    finally:
        await engine.dispose()
