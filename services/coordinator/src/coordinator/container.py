"""Composition root: builds every adapter from settings and wires the use case. Tests call the same
builder with fakes (``build_container(settings, research_gateway=FakeGateway(), ...)``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
import structlog

from coordinator.application.outcome_service import SessionOutcomeService
from coordinator.application.research_orchestration_service import ResearchOrchestrationService
from coordinator.application.research_retry_service import ResearchRetryService
from coordinator.application.session_query_service import SessionQueryService
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.research_expert_gateway import IResearchExpertGateway
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository
from coordinator.infrastructure.adapters.debate_gateway_adapter import DebateGatewayAdapter
from coordinator.infrastructure.adapters.judge_gateway_adapter import JudgeGatewayAdapter
from coordinator.infrastructure.adapters.peer_http import CallPolicy, PeerClient, peer_http_client
from coordinator.infrastructure.adapters.price_bars_gateway_adapter import PriceBarsGatewayAdapter
from coordinator.infrastructure.adapters.research_gateway_adapter import ResearchGatewayAdapter
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator
from coordinator.settings import Settings
from shared_contracts.redaction import error_text

log = structlog.get_logger(__name__)


@dataclass
class CoordinatorContainer:
    settings: Settings
    http_client: httpx.AsyncClient
    peers: dict[str, PeerClient]
    """research / debate / judge, for /readyz."""
    research_gateway: IResearchExpertGateway
    debate_gateway: IDebateGateway
    judge_gateway: IJudgeGateway
    bars_gateway: IPriceBarsGateway
    """The research service's bars: sessions' outcomes and the scorecard."""
    orchestrator: IResearchOrchestrationPort
    sessions: ISessionRepository | None
    research_service: ResearchOrchestrationService
    session_queries: SessionQueryService | None
    """None without a session store (only in tests): the session routes then answer 503."""
    retry_service: ResearchRetryService | None
    outcome_service: SessionOutcomeService | None
    """Sessions' outcomes and the scorecard; None without a session store."""
    owns_http_client: bool = True

    async def readiness(self) -> dict[str, str]:
        """{dependency: "ok" | reason}: each peer's GET /healthz, and the session store's ping."""
        timeout = self.settings.readiness_timeout_seconds
        labels = list(self.peers)
        checks = [self.peers[name].health(timeout) for name in labels]
        if self.sessions is not None:  # checked beside the peers: /readyz answers within the one timeout
            labels.append("database")
            checks.append(_database_check(self.sessions, timeout))
        return dict(zip(labels, await asyncio.gather(*checks), strict=True))

    async def aclose(self) -> None:
        if self.owns_http_client:
            await self.http_client.aclose()


def _policy(settings: Settings, budget: float) -> CallPolicy:
    return CallPolicy(
        budget_seconds=budget,
        connect_timeout_seconds=settings.connect_timeout_seconds,
        max_attempts=settings.http_max_attempts,
        backoff_initial_seconds=settings.http_backoff_seconds,
        backoff_max_seconds=settings.http_backoff_max_seconds,
        backoff_jitter_seconds=settings.http_backoff_seconds,
    )


def build_container(
    settings: Settings,
    *,
    http_client: httpx.AsyncClient | None = None,
    research_gateway: IResearchExpertGateway | None = None,
    debate_gateway: IDebateGateway | None = None,
    judge_gateway: IJudgeGateway | None = None,
    bars_gateway: IPriceBarsGateway | None = None,
    sessions: ISessionRepository | None = None,
) -> CoordinatorContainer:
    owns_client = http_client is None
    client = http_client or peer_http_client(settings.http_max_connections)
    key = settings.service_api_key.get_secret_value() if settings.service_api_key is not None else None

    def peer(name: str, url: str, budget: float) -> PeerClient:
        return PeerClient(name, url, client, _policy(settings, budget), service_key=key)

    peers = {
        "research": peer("research", settings.research_service_url, settings.expert_timeout_seconds),
        "debate": peer("debate", settings.debate_service_url, settings.debate_timeout_seconds),
        "judge": peer("judge", settings.judge_service_url, settings.judge_timeout_seconds),
    }
    research = research_gateway or ResearchGatewayAdapter(peers["research"])
    debate = debate_gateway or DebateGatewayAdapter(peers["debate"])
    judge = judge_gateway or JudgeGatewayAdapter(peers["judge"])
    # The research service again, with the bars call's own budget (a session read waits for it).
    bars = bars_gateway or PriceBarsGatewayAdapter(
        peer("research", settings.research_service_url, settings.bars_timeout_seconds)
    )
    orchestrator = LangGraphResearchOrchestrator(research, debate_gateway=debate, judge_gateway=judge)
    return CoordinatorContainer(
        settings=settings,
        http_client=client,
        peers=peers,
        research_gateway=research,
        debate_gateway=debate,
        judge_gateway=judge,
        bars_gateway=bars,
        orchestrator=orchestrator,
        sessions=sessions,
        research_service=ResearchOrchestrationService(orchestrator, sessions),
        session_queries=SessionQueryService(sessions) if sessions is not None else None,
        retry_service=ResearchRetryService(orchestrator, sessions) if sessions is not None else None,
        outcome_service=SessionOutcomeService(sessions, bars) if sessions is not None else None,
        owns_http_client=owns_client,
    )


async def _database_check(sessions: ISessionRepository, seconds: float) -> str:
    try:
        async with asyncio.timeout(seconds):
            await sessions.ping()
    except Exception as exc:
        log.warning("readiness_database_unusable", error=error_text(exc))
        return f"unusable: {type(exc).__name__}"
    return "ok"
