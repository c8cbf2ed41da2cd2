"""Composition root: ``build_container`` wires every adapter and use case (tests pass fakes through it, e.g.
``build_container(settings, sessions=InMemorySessionRepository(), research_gateway=FakeGateway())``);
``open_container`` opens the session store, builds the container, and closes both on exit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import structlog

from coordinator.application.services.batch_runner import BatchRunner, BatchSettings
from coordinator.application.services.batch_service import BatchService
from coordinator.application.services.channel_service import ChannelService
from coordinator.application.services.delivery_service import DeliveryDispatcher, DeliveryService
from coordinator.application.services.market_reference_service import MarketReferenceService
from coordinator.application.services.notification_composer import NotificationComposer
from coordinator.application.services.outcome_service import SessionOutcomeService
from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.services.schedule_service import ScheduleRunner, ScheduleService
from coordinator.application.services.session_event_feed import SessionEventFeed
from coordinator.application.services.session_query_service import SessionQueryService
from coordinator.application.services.stream_slots import StreamSlots
from coordinator.application.services.usage_accounting import UsageAccounting
from coordinator.application.services.watchlist_service import WatchlistService
from coordinator.domain.model.delivery import RetryPolicy
from coordinator.domain.model.session import utcnow
from coordinator.domain.ports.batch_store import IBatchStore
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.job_store import IJobStore
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.market_reference_gateway import IMarketReferenceGateway
from coordinator.domain.ports.notification_sender import INotificationSender
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.session_repository import ISessionRepository
from coordinator.domain.ports.usage_ledger import ITokenQuota, IUsageLedger
from coordinator.infrastructure.adapters.debate_gateway_adapter import DebateGatewayAdapter
from coordinator.infrastructure.adapters.judge_gateway_adapter import JudgeGatewayAdapter
from coordinator.infrastructure.adapters.market_reference_gateway_adapter import MarketReferenceGatewayAdapter
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient, peer_http_client
from coordinator.infrastructure.adapters.price_bars_gateway_adapter import PriceBarsGatewayAdapter
from coordinator.infrastructure.adapters.research_gateway_adapter import ResearchGatewayAdapter
from coordinator.infrastructure.adapters.token_quota_adapter import token_quota_for
from coordinator.infrastructure.notifications.sender import NotificationSender
from coordinator.infrastructure.orchestration.checkpointer import open_checkpointer
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator
from coordinator.infrastructure.persistence.batch_store import SqlAlchemyBatchStore
from coordinator.infrastructure.persistence.channel_store import SqlAlchemyChannelStore
from coordinator.infrastructure.persistence.delivery_store import SqlAlchemyDeliveryStore
from coordinator.infrastructure.persistence.event_notifications import listen_for_events
from coordinator.infrastructure.persistence.retention import RetentionPurge
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.store import open_session_store
from coordinator.infrastructure.persistence.watchlist_store import SqlAlchemyWatchlistStore
from coordinator.infrastructure.scheduling.cron_calendar import CronCalendar
from coordinator.settings import Settings
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)


@dataclass
class Workflow:
    """The daily loop's use cases and its two background loops (slots that fire, notifications to send)."""

    watchlists: WatchlistService
    schedules: ScheduleService
    channels: ChannelService
    deliveries: DeliveryService
    schedule_runner: ScheduleRunner
    dispatcher: DeliveryDispatcher

    def start(self) -> None:
        self.schedule_runner.start()
        self.dispatcher.start()

    async def stop(self) -> None:
        await self.schedule_runner.stop()
        await self.dispatcher.stop()


@dataclass
class CoordinatorContainer:
    settings: Settings
    http_client: httpx.AsyncClient
    peers: dict[str, PeerClient]
    """research / debate / judge, for /readyz."""
    sessions: ISessionRepository
    job_store: IJobStore
    jobs: ResearchJobs
    event_feed: SessionEventFeed
    research_service: ResearchOrchestrationService
    session_queries: SessionQueryService
    outcome_service: SessionOutcomeService
    market_reference: MarketReferenceService
    """The console's universe and bars."""
    usage_accounting: UsageAccounting
    batches: BatchService | None
    """None when the sessions are not kept in the SQL store (a test's in-memory repository)."""
    batch_runner: BatchRunner | None
    stream_slots: StreamSlots
    """The event streams followed at once, per client and in all."""
    workflow: Workflow | None = None
    """Watchlists, schedules, channels and the outbox (None without the SQL store, as batches)."""
    owns_http_client: bool = True

    async def readiness(self) -> dict[str, str]:
        """{dependency: "ok" | reason}: each peer's GET /healthz and the session store's ping, side by side
        (/readyz answers within the one timeout)."""
        timeout = self.settings.readiness_timeout_seconds
        checks = {name: peer.health(timeout) for name, peer in self.peers.items()}
        checks["database"] = _database_check(self.sessions, timeout)
        return dict(zip(checks, await asyncio.gather(*checks.values()), strict=True))

    async def aclose(self) -> None:
        if self.workflow is not None:
            await self.workflow.stop()
        if self.batch_runner is not None:
            await self.batch_runner.stop()
        await self.jobs.stop()
        if self.owns_http_client:
            await self.http_client.aclose()


def build_container(
    settings: Settings,
    *,
    sessions: ISessionRepository,
    http_client: httpx.AsyncClient | None = None,
    research_gateway: IResearchExpertGateway | None = None,
    debate_gateway: IDebateGateway | None = None,
    judge_gateway: IJudgeGateway | None = None,
    bars_gateway: IPriceBarsGateway | None = None,
    market_gateway: IMarketReferenceGateway | None = None,
    checkpointer: Any = None,
    owner: str | None = None,
    token_quota: ITokenQuota | None = None,
    batch_store: IBatchStore | None = None,
    notification_sender: INotificationSender | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> CoordinatorContainer:
    """``sessions`` is also the job store (``IJobStore``) and the usage ledger (``IUsageLedger``); ``checkpointer``:
        LangGraph's, to resume researches (None: not resumable); ``owner``: this coordinator's instance id (the sessions
        it claims are its own); ``token_quota``: the clients' daily tokens (default: CLIENT_DAILY_TOKENS in memory or in
        REDIS_URL, when limits are on); ``batch_store``: where batches are kept (default: the sessions' database, when
    ``sessions`` is the SQL repository), and with it watchlists, schedules, channels and the outbox;
    ``notification_sender``: how notifications are sent (default: each channel kind's own, over ``http_client``);
    ``clock``: the time schedules and the outbox go by."""
    if not isinstance(sessions, IJobStore):
        raise TypeError("the session repository must also be the job store (IJobStore)")
    if not isinstance(sessions, IUsageLedger):
        raise TypeError("the session repository must also be the usage ledger (IUsageLedger)")
    client = http_client or peer_http_client(settings.http_max_connections)
    key = settings.service_api_key.get_secret_value() if settings.service_api_key is not None else None

    def peer(name: str, url: str, budget: float) -> PeerClient:
        policy = CallPolicy(
            budget_seconds=budget,
            connect_timeout_seconds=settings.connect_timeout_seconds,
            max_attempts=settings.http_max_attempts,
            backoff_initial_seconds=settings.http_backoff_seconds,
            backoff_max_seconds=settings.http_backoff_max_seconds,
            backoff_jitter_seconds=settings.http_backoff_seconds,
        )
        return PeerClient(name, url, client, policy, service_key=key)

    peers = {
        "research": peer("research", settings.research_service_url, settings.expert_timeout_seconds),
        "debate": peer("debate", settings.debate_service_url, settings.debate_timeout_seconds),
        "judge": peer("judge", settings.judge_service_url, settings.judge_timeout_seconds),
    }
    research = research_gateway or ResearchGatewayAdapter(peers["research"])
    debate = debate_gateway or DebateGatewayAdapter(peers["debate"])
    judge = judge_gateway or JudgeGatewayAdapter(peers["judge"])
    # The research service again, with the bars call's own budget (a session read waits for it).
    bars_peer = peer("research", settings.research_service_url, settings.bars_timeout_seconds)
    bars = bars_gateway or PriceBarsGatewayAdapter(bars_peer)
    market = market_gateway or MarketReferenceGatewayAdapter(bars_peer)
    orchestrator = LangGraphResearchOrchestrator(research, debate, judge, checkpointer=checkpointer)
    job_settings = JobSettings(
        concurrency=settings.research_concurrency,
        queue_limit=settings.research_queue_limit,
        poll_seconds=settings.job_poll_seconds,
        stall_seconds=settings.stall_seconds,
    )
    owner = owner or getattr(sessions, "owner", None) or "local"
    resumable = checkpointer is not None
    if token_quota is None and settings.limits_on and settings.client_daily_tokens:
        token_quota = token_quota_for(settings.redis_url, settings.client_daily_tokens)
    accounting = UsageAccounting(
        sessions, prices=settings.llm_prices, quota=token_quota, reservation=settings.research_token_reservation
    )
    feed = SessionEventFeed(sessions, poll_seconds=settings.job_poll_seconds)
    jobs = ResearchJobs(
        orchestrator,
        sessions,
        sessions,
        owner=owner,
        settings=job_settings,
        resumable=resumable,
        accounting=accounting,
        events_written=feed.wake,
    )
    if batch_store is None and isinstance(sessions, SqlAlchemySessionRepository):
        batch_store = SqlAlchemyBatchStore.sharing(sessions)
    runner: BatchRunner | None = None
    batches: BatchService | None = None
    if batch_store is not None:
        # The peers again, with a bulk call's own budget (a chunk of many items).
        bulk = {
            name: peer(name, url, settings.batch_call_timeout_seconds)
            for name, url in (
                ("research", settings.research_service_url),
                ("debate", settings.debate_service_url),
                ("judge", settings.judge_service_url),
            )
        }
        runner = BatchRunner(
            batch_store,
            research_gateway or ResearchGatewayAdapter(bulk["research"]),
            debate_gateway or DebateGatewayAdapter(bulk["debate"]),
            judge_gateway or JudgeGatewayAdapter(bulk["judge"]),
            owner=owner,
            settings=BatchSettings(
                chunk_size=settings.batch_chunk_size,
                concurrency=settings.batch_concurrency,
                poll_seconds=settings.job_poll_seconds,
            ),
            accounting=accounting,
            events_written=feed.wake,
        )
        batches = BatchService(
            batch_store,
            runner,
            token_budget=settings.research_token_budget,
            accounting=accounting,
            queue_limit=settings.batch_queue_limit,
            poll_seconds=settings.job_poll_seconds,
            language=settings.report_language,
        )
    workflow = None
    if batches is not None and isinstance(batch_store, SqlAlchemyBatchStore):
        sender = notification_sender or _notification_sender(settings, client)
        workflow = _workflow(settings, batch_store, batches, market, bars, sender, clock)
    return CoordinatorContainer(
        settings=settings,
        http_client=client,
        peers=peers,
        sessions=sessions,
        job_store=sessions,
        jobs=jobs,
        event_feed=feed,
        research_service=ResearchOrchestrationService(
            jobs,
            sessions,
            sessions,
            token_budget=settings.research_token_budget,
            accounting=accounting,
            language=settings.report_language,
        ),
        session_queries=SessionQueryService(sessions),
        outcome_service=SessionOutcomeService(sessions, bars),
        market_reference=MarketReferenceService(market),
        usage_accounting=accounting,
        batches=batches,
        batch_runner=runner,
        stream_slots=StreamSlots(per_client=settings.event_streams_per_client, total=settings.event_streams_total),
        workflow=workflow,
        owns_http_client=http_client is None,
    )


def _notification_sender(settings: Settings, client: httpx.AsyncClient) -> INotificationSender:
    password = settings.smtp_password.get_secret_value() if settings.smtp_password is not None else None
    return NotificationSender(
        client,
        request_timeout_seconds=settings.delivery_timeout_seconds,
        telegram_api_base=settings.telegram_api_base,
        smtp_host=settings.smtp_host,
        smtp_port=settings.smtp_port,
        smtp_username=settings.smtp_username,
        smtp_password=password,
        smtp_from=settings.smtp_from,
        smtp_starttls=settings.smtp_starttls,
        smtp_use_tls=settings.smtp_use_tls,
        smtp_timeout_seconds=settings.delivery_timeout_seconds,
    )


def _workflow(
    settings: Settings,
    batch_store: SqlAlchemyBatchStore,
    batches: BatchService,
    market: IMarketReferenceGateway,
    bars: IPriceBarsGateway,
    sender: INotificationSender,
    clock: Callable[[], datetime],
) -> Workflow:
    """Watchlists, schedules, channels and the outbox, on the batches' database."""
    watchlist_store = SqlAlchemyWatchlistStore(batch_store.engine, batch_store.writes)
    channel_store = SqlAlchemyChannelStore(batch_store.engine, batch_store.writes)
    delivery_store = SqlAlchemyDeliveryStore(batch_store.engine, batch_store.writes)
    calendar = CronCalendar()
    watchlists = WatchlistService(watchlist_store, batches, channel_store, market, calendar)
    composer = NotificationComposer(batch_store, watchlist_store, bars, console_base_url=settings.console_base_url)
    policy = RetryPolicy(
        max_attempts=settings.delivery_max_attempts,
        base_seconds=settings.delivery_retry_base_seconds,
        cap_seconds=settings.delivery_retry_max_seconds,
    )
    dispatcher = DeliveryDispatcher(
        delivery_store,
        channel_store,
        batch_store,
        composer,
        sender,
        policy=policy,
        poll_seconds=settings.delivery_poll_seconds,
        send_timeout_seconds=settings.delivery_timeout_seconds,
        now=clock,
    )
    return Workflow(
        watchlists=watchlists,
        schedules=ScheduleService(watchlist_store, watchlists, calendar, now=clock),
        channels=ChannelService(channel_store, sender),
        deliveries=DeliveryService(delivery_store, dispatcher),
        schedule_runner=ScheduleRunner(
            watchlist_store, watchlists, batches, calendar, poll_seconds=settings.schedule_poll_seconds, now=clock
        ),
        dispatcher=dispatcher,
    )


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[CoordinatorContainer]:
    """Opens the session store (migrated; this coordinator registered, the sessions of coordinators that are
    gone marked interrupted), purges expired sessions on a schedule, builds the container; closes all on exit."""
    sessions, close = await open_session_store(settings.database_url, lease_seconds=settings.session_lease_seconds)
    days, every = settings.session_retention_days, settings.session_purge_interval_seconds
    purge = RetentionPurge(sessions, retention_days=days, interval_seconds=every)
    try:
        if days:
            purge.start()
        async with (
            open_checkpointer(settings.database_url) as checkpointer,
            aclosing(
                build_container(settings, sessions=sessions, checkpointer=checkpointer, owner=sessions.owner)
            ) as container,
        ):
            container.jobs.start()
            if container.batch_runner is not None:
                container.batch_runner.start()
            if container.workflow is not None:
                container.workflow.start()
            async with listen_for_events(settings.database_url, container.event_feed.wake):
                yield container
    finally:
        await purge.stop()
        await close()


async def _database_check(sessions: ISessionRepository, seconds: float) -> str:
    try:
        async with asyncio.timeout(seconds):
            await sessions.ping()
    except Exception as exc:
        log.warning("readiness_database_unusable", error=error_text(exc))
        return f"unusable: {type(exc).__name__}"
    return "ok"
