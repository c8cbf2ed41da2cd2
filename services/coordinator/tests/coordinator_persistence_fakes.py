"""Test helpers for the sessions store: throw-away databases on every backend the store supports.

- ``sqlite_url(tmp_path)``: a SQLite file in a directory that does not exist yet.
- ``local_postgres_database()``: a uniquely named database on the local server at 127.0.0.1:5432
  (database ``test``, user ``postgres`` or ``root``, trust auth), dropped afterwards; skips clearly
  when the server does not answer.
- ``postgres_container_url()``: a testcontainers ``PostgresContainer``; skips clearly without Docker.

Plus ``make_session`` to build domain sessions tersely, and ``coordinator_app``: the real app
(real LangGraph orchestrator, real SQLAlchemy store) with fake peers, called through ASGI.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from coordinator_fakes import FakeBarsGateway

from coordinator.container import CoordinatorContainer, build_container
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, utcnow
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.market_reference_gateway import IMarketReferenceGateway
from coordinator.domain.ports.notification_sender import INotificationSender
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.infrastructure.persistence.engine import build_engine
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.main import create_app
from coordinator.settings import Settings
from shared_contracts.research import DateSpan, PriceBars, Universe, UniverseSymbol

LAST_BAR_DAY = "2025-09-30"


class FakeMarketGateway(IMarketReferenceGateway):
    """An offline universe of ``symbols`` (each with bars up to ``LAST_BAR_DAY``); no bars served."""

    def __init__(self, symbols: list[str] | None = None) -> None:
        named = symbols or [
            "600519.SH", "000001.SZ", "300750.SZ", "601318.SH", "000858.SZ", *(f"{600000 + i}.SH" for i in range(100))
        ]  # fmt: skip
        self.symbols = list(dict.fromkeys(named))

    async def universe(self) -> Universe:
        span = DateSpan(first="2018-01-02", last=LAST_BAR_DAY, count=1900)
        rows = [UniverseSymbol(symbol=s, market="CN", bars=span) for s in self.symbols]
        return Universe(data_provider="offline", open_ended=False, count=len(rows), symbols=rows)

    async def price_bars(self, symbol: str, start: date | None = None, end: date | None = None) -> PriceBars:
        raise NotImplementedError("the fake market serves no bars")


PG_HOST, PG_PORT, PG_ADMIN_DB = "127.0.0.1", 5432, "test"
PG_USERS = ("postgres", "root")


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'not-yet-created' / 'coordinator.db'}"


async def _find_pg_user() -> tuple[str | None, str]:
    import asyncpg

    reasons = []
    for user in PG_USERS:
        try:
            conn = await asyncio.wait_for(
                asyncpg.connect(host=PG_HOST, port=PG_PORT, user=user, database=PG_ADMIN_DB), timeout=5
            )
        except Exception as exc:
            reasons.append(f"{user}: {type(exc).__name__}: {exc}")
            continue
        try:
            can_create = await conn.fetchval(
                "SELECT rolsuper OR rolcreatedb FROM pg_roles WHERE rolname = current_user"
            )
        finally:
            await conn.close()
        if can_create:
            return user, ""
        reasons.append(f"{user}: may not create databases")
    return None, "; ".join(reasons)


async def pg_admin(user: str, sql: str) -> None:
    """Run one statement as ``user`` on the admin database of the local PostgreSQL."""
    import asyncpg

    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=user, database=PG_ADMIN_DB)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def local_postgres_database() -> Iterator[str]:
    """A fresh database ``coord_test_<random>`` for one test run; yields its asyncpg URL."""
    user, why = asyncio.run(_find_pg_user())
    if user is None:
        pytest.skip(f"PostgreSQL at {PG_HOST}:{PG_PORT} (database {PG_ADMIN_DB}) is not usable: {why}")
    name = f"coord_test_{uuid.uuid4().hex[:12]}"
    asyncio.run(pg_admin(user, f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql+asyncpg://{user}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        asyncio.run(pg_admin(user, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def docker_unavailable_reason() -> str | None:
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:
        return f"no Docker engine for testcontainers ({type(exc).__name__}: {str(exc)[:160]})"
    return None


@contextmanager
def postgres_container_url() -> Iterator[str]:
    reason = docker_unavailable_reason()
    if reason:
        pytest.skip(reason)
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer("postgres:16-alpine", driver="asyncpg") as pg:
        yield pg.get_connection_url()


_T0 = datetime(2026, 2, 13, 9, 30, tzinfo=UTC)


@asynccontextmanager
async def repository_on(database_url: str) -> AsyncIterator[SqlAlchemySessionRepository]:
    """Another repository on an existing database (its own engine; no migration, no lease), closed after."""
    engine = build_engine(database_url)
    repository = SqlAlchemySessionRepository(engine)
    try:
        yield repository
    finally:
        await repository.close()
        await engine.dispose()


def make_session(
    *,
    symbol: str = "000001.SZ",
    experts: list[str] | None = None,
    status: SessionStatus = "running",
    retried_from: str | None = None,
    retry_count: int = 0,
    minutes: int = 0,
    options: dict[str, dict[str, Any]] | None = None,
    skip_debate: bool = False,
    outcomes: dict[str, ExpertOutcome] | None = None,
    analysis_date: date | None = None,
) -> ResearchSession:
    at = _T0 + timedelta(minutes=minutes)
    return ResearchSession(
        session_id=str(uuid.uuid4()),
        symbol=symbol,
        experts=experts or ["technical_analyst", "macro_intelligence"],
        options=options if options is not None else {"technical_analyst": {"analysis_date": "2026-02-13"}},
        skip_debate=skip_debate,
        analysis_date=analysis_date,
        status=status,
        retry_count=retry_count,
        retried_from=retried_from,
        request_id=f"req-{uuid.uuid4().hex[:8]}",
        expert_outcomes=dict(outcomes or {}),
        created_at=at,
        updated_at=at,
    )


RESEARCH = "/api/v1/coordinator/research"
SESSIONS = "/api/v1/coordinator/sessions"


def retry_path(session_id: str) -> str:
    return f"{RESEARCH}/{session_id}/retry"


@dataclass
class AppUnderTest:
    client: httpx.AsyncClient
    sessions: SqlAlchemySessionRepository
    container: CoordinatorContainer
    research: IResearchExpertGateway
    """The research gateway the container was given."""


@asynccontextmanager
async def coordinator_app(
    database_url: str,
    *,
    research: IResearchExpertGateway,
    debate: IDebateGateway,
    judge: IJudgeGateway,
    bars: IPriceBarsGateway | None = None,
) -> AsyncIterator[AppUnderTest]:
    """``bars``: the research service's bars (default: a fake with none, so no outcome calls the network)."""
    sessions, close = await open_session_store(database_url)
    settings = Settings(database_url=database_url, log_json=False, log_level="WARNING")
    container = build_container(
        settings,
        research_gateway=research,
        debate_gateway=debate,
        judge_gateway=judge,
        bars_gateway=bars or FakeBarsGateway(),
        sessions=sessions,
    )
    app = create_app(settings, container=container)
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                yield AppUnderTest(client=client, sessions=sessions, container=container, research=research)
    finally:
        await container.aclose()
        await close()


class GatedExpertGateway(IResearchExpertGateway):
    """Wraps a gateway: every call announces itself (``entered``) and then waits for ``release``,
    so a test can hold a research mid-flight."""

    def __init__(self, inner: IResearchExpertGateway) -> None:
        self.inner = inner
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.entered.set()
        await self.release.wait()
        return await self.inner.run_expert(expert_type, symbol, options)


@asynccontextmanager
async def coordinator_on_store(
    database_url: str,
    *,
    checkpointed: bool = False,
    research_gateway: IResearchExpertGateway | None = None,
    debate_gateway: IDebateGateway | None = None,
    judge_gateway: IJudgeGateway | None = None,
    market_gateway: IMarketReferenceGateway | None = None,
    bars_gateway: IPriceBarsGateway | None = None,
    notification_sender: INotificationSender | None = None,
    clock: Callable[[], datetime] | None = None,
    http_client: httpx.AsyncClient | None = None,
    **settings: Any,
) -> AsyncIterator[httpx.AsyncClient]:
    """One coordinator (its own instance in the store, its jobs, batch runner, schedules and outbox started;
    ``checkpointed``: with LangGraph's checkpointer) on ``database_url``, the fakes as its peers (the market: a
    ``FakeMarketGateway``), served in process. ``http_client``: the one its own adapters (e.g. notifications) use."""
    from contextlib import AsyncExitStack

    from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway, make_settings

    from coordinator.infrastructure.orchestration.checkpointer import open_checkpointer

    async with AsyncExitStack() as stack:
        sessions, close = await open_session_store(database_url)
        stack.push_async_callback(close)
        checkpointer = await stack.enter_async_context(open_checkpointer(database_url)) if checkpointed else None
        config = make_settings(database_url=database_url, job_poll_seconds=0.05, **settings)
        container = build_container(
            config,
            sessions=sessions,
            research_gateway=research_gateway or FakeExpertGateway(),
            debate_gateway=debate_gateway or FakeDebateGateway(),
            judge_gateway=judge_gateway or FakeJudgeGateway(),
            bars_gateway=bars_gateway or FakeBarsGateway(),
            market_gateway=market_gateway or FakeMarketGateway(),
            checkpointer=checkpointer,
            notification_sender=notification_sender,
            http_client=http_client,
            clock=clock or utcnow,
        )
        stack.push_async_callback(container.aclose)
        container.jobs.start()
        if container.batch_runner is not None:
            container.batch_runner.start()
        if container.workflow is not None:
            container.workflow.start()
        app = create_app(config, container=container)
        await stack.enter_async_context(app.router.lifespan_context(app))
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        yield await stack.enter_async_context(client)
