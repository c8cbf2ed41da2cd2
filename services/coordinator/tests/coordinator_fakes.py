"""Test doubles for the coordinator's ports, and wire-valid sample data.

Fakes implement the ports (in memory) and record what they were asked; tests assert on that state.
Sample expert results, debate outcomes and verdicts satisfy the shared wire models.
"""

from __future__ import annotations

import asyncio
import copy
import json
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import date, datetime
from typing import Any

import httpx

from coordinator.application.services.research_jobs import JobSettings, ResearchJobs
from coordinator.application.services.research_orchestration_service import ResearchOrchestrationService
from coordinator.container import CoordinatorContainer, build_container
from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.exceptions import GatewayError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.events import NewEvent, SessionEvent
from coordinator.domain.model.outcome import StoredVerdict
from coordinator.domain.model.progress import ExpertFinished, Progress, ResearchFinished, StageFinished
from coordinator.domain.model.session import (
    ExpertOutcome,
    ResearchSession,
    SessionStatus,
    StageOutcome,
    utcnow,
)
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.domain.ports.job_store import Claim, Enqueued, IJobStore, Started
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway
from coordinator.domain.ports.research_orchestration import IResearchOrchestrationPort
from coordinator.domain.ports.session_repository import ISessionRepository, VerdictFilter
from coordinator.domain.ports.usage_ledger import IUsageLedger, UsageRecord, UsageTotal
from coordinator.infrastructure.persistence.job_queue import client_share
from coordinator.main import create_app
from coordinator.settings import Settings
from shared_contracts.scoring import DailyBar
from shared_contracts.usage import LLMUsage

ALL_EXPERTS = [e.value for e in ExpertType]
_ENGINE = {"kind": "rules", "model": None, "fallback_reason": None}
_AUDIT = {"as_of": "2026-02-13", "data_source": "offline-snapshot", "engine": _ENGINE, "data_gaps": []}


# --- sample data ----------------------------------------------------------------------------------


def technical_result(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        **_AUDIT,
        "input": {"rules": "ma/rsi/macd"},
        "output": "trace: MA20 > MA60",
        "signal": "BULLISH",
        "confidence": 0.78,
        "summary_reasoning": "均线多头排列，MACD 金叉",
        "risk_warning": "RSI 接近超买",
        "key_technical_levels": {"support": [1500.0, 1450.5], "resistance": [1650.0]},
        "technical_indicators": {"close": 1580.5, "rsi14": 68.2, "ma20": 1540.0},
    }


def financial_result(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        **_AUDIT,
        "input": "prompt",
        "output": "raw",
        "signal": "NEUTRAL",
        "confidence": 0.6,
        "summary_reasoning": "ROE 稳定",
        "risk_warning": "应收增长",
        "financial_indicators": {"roe": 0.31},
        "dimension_analyses": [{"dimension": "profitability", "score": 8}],
    }


def valuation_result(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        **_AUDIT,
        "input": "prompt",
        "output": "raw",
        "valuation_verdict": "UNDERVALUED",
        "confidence_score": 0.65,
        "reasoning_summary": "PE 处于历史低位",
        "risk_factors": ["行业政策", "需求放缓"],
        "estimated_intrinsic_value_range": {"low": 1700, "high": 1900},
        "valuation_indicators": {"pe_ttm": 19.5},
    }


def macro_result(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        **_AUDIT,
        "input": "prompt",
        "output": "raw",
        "macro_environment": "NEUTRAL",
        "confidence_score": 0.5,
        "macro_summary": "流动性中性",
        "key_risks": ["消费疲软"],
        "macro_indicators": {"cpi": 0.2},
        "information_sources": ["https://example.org/cpi"],
    }


def catalyst_result(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        "as_of": "2026-02-13",
        "data_source": "offline-snapshot",
        "engine": _ENGINE,
        "data_gaps": [],
        "result": {
            "catalyst_assessment": "POSITIVE",
            "confidence_score": 0.7,
            "catalyst_summary": "提价预期",
            "positive_catalysts": [{"title": "提价", "description": "出厂价上调"}],
            "negative_catalysts": [{"title": "减持", "description": "股东减持计划"}],
        },
        "raw_llm_output": "raw llm",
        "user_prompt": "prompt",
        "catalyst_context": {"events": []},
    }


SAMPLE_RESULTS = {
    ExpertType.TECHNICAL_ANALYST.value: technical_result,
    ExpertType.FINANCIAL_AUDITOR.value: financial_result,
    ExpertType.VALUATION_MODELER.value: valuation_result,
    ExpertType.MACRO_INTELLIGENCE.value: macro_result,
    ExpertType.CATALYST_DETECTIVE.value: catalyst_result,
}


def sample_result(expert: str, symbol: str = "600519.SH") -> dict[str, Any]:
    return SAMPLE_RESULTS[expert](symbol)


def debate_outcome(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        "direction": "BULLISH",
        "confidence": 0.7,
        "bull_case": {
            "core_thesis": "估值低于内在价值",
            "supporting_arguments": [
                {
                    "argument": "PE 低",
                    "evidence": "PE 19.5",
                    "source_experts": ["valuation_modeler"],
                    "strength": "HIGH",
                }
            ],
            "acknowledged_risks": ["需求放缓"],
        },
        "bear_case": {
            "core_thesis": "行业景气度下行",
            "supporting_arguments": [
                {
                    "argument": "消费弱",
                    "evidence": "CPI 0.2",
                    "source_experts": ["macro_intelligence"],
                    "strength": "MEDIUM",
                }
            ],
            "acknowledged_strengths": ["品牌"],
        },
        "risk_matrix": [
            {"risk": "政策风险", "probability": "LOW", "impact": "HIGH", "mitigation": "分散"},
            {"risk": "需求风险", "probability": "MEDIUM", "impact": "MEDIUM", "mitigation": "跟踪"},
            {"risk": "估值风险", "probability": "LOW", "impact": "LOW", "mitigation": "止损"},
        ],
        "key_disagreements": ["需求是否见底"],
        "conflict_resolution": "多头证据更强",
        "engine": _ENGINE,
    }


def verdict(symbol: str = "600519.SH") -> dict[str, Any]:
    return {
        "symbol": symbol,
        "action": "BUY",
        "position_percent": 20.0,
        "confidence": 0.66,
        "entry_strategy": "分批建仓",
        "stop_loss": {"percent_from_entry": -8.0, "price": 1454.06, "basis": "support"},
        "take_profit": {"percent_from_entry": 15.0, "price": 1817.58, "basis": "resistance"},
        "time_horizon": "MEDIUM_TERM",
        "risk_warnings": ["政策风险"],
        "reasoning": "多头占优",
        "engine": _ENGINE,
    }


# --- port fakes ----------------------------------------------------------------------------------


class FakeExpertGateway(IResearchExpertGateway):
    """Answers each expert with its sample result unless told to fail; records every call.

    ``barrier``: each call waits on it before answering (proves the calls run concurrently).
    """

    def __init__(
        self,
        failures: dict[str, Exception] | None = None,
        *,
        barrier: asyncio.Barrier | None = None,
        attempts: dict[str, int] | None = None,
    ) -> None:
        self.failures = failures or {}
        self.barrier = barrier
        self.attempts = attempts or {}
        self.calls: list[tuple[str, str, dict[str, Any] | None]] = []

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.calls.append((expert_type.value, symbol, options))
        if self.barrier is not None:
            await self.barrier.wait()
        if expert_type.value in self.failures:
            raise self.failures[expert_type.value]
        if isinstance(options, ExpertOptions):
            options.attempts = self.attempts.get(expert_type.value, 1)
        return sample_result(expert_type.value, symbol)

    @property
    def called(self) -> list[str]:
        return [c[0] for c in self.calls]


class FakeDebateGateway(IDebateGateway):
    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[dict[str, Any]] = []
        """The keywords of each call (``language``, ``token_budget`` when the research has them)."""

    async def run_debate(self, symbol: str, expert_results: dict[str, Any], **asked: Any) -> dict[str, Any]:
        self.calls.append((symbol, copy.deepcopy(expert_results)))
        self.asked.append(asked)
        if self.error is not None:
            raise self.error
        return debate_outcome(symbol)


class FakeJudgeGateway(IJudgeGateway):
    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.calls: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self.calls.append((symbol, debate_outcome, context))
        if self.error is not None:
            raise self.error
        return verdict(symbol)


class FakeOrchestrator(IResearchOrchestrationPort):
    """Returns a fixed overall status with one item per requested expert; records requests."""

    def __init__(self, overall_status: str = "completed") -> None:
        self.overall_status = overall_status
        self.requests: list[ResearchRequest] = []

    async def stream(
        self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
    ) -> AsyncIterator[Progress]:
        self.requests.append(request)
        ok = self.overall_status != "failed"
        items = [
            {"expert_type": e, "status": "success", "data": sample_result(e.value)}
            if ok
            else {"expert_type": e, "status": "failed", "error": "boom"}
            for e in request.experts
        ]
        for item in items:
            outcome = ExpertOutcome(item["status"], data=item.get("data"), error=item.get("error"))
            yield ExpertFinished(item["expert_type"].value, outcome)
        yield ResearchFinished(
            ResearchResult.model_validate(
                {"symbol": request.symbol, "overall_status": self.overall_status, "expert_results": items}
            )
        )


class RecordingListener:
    """Runs an orchestrator and records what finished, as ``(kind, expert | stage outcome, data)``."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, Any]] = []
        self.progress: list[Progress] = []

    async def run(self, orchestrator: IResearchOrchestrationPort, request: ResearchRequest) -> ResearchResult:
        async for progress in orchestrator.stream(request):
            self.progress.append(progress)
            if isinstance(progress, ExpertFinished):
                self.events.append(("expert", progress.expert, progress.outcome))
            elif isinstance(progress, StageFinished):
                self.events.append((progress.stage, progress.outcome, progress.outcome.data))
            elif isinstance(progress, ResearchFinished):
                return progress.result
        raise AssertionError("no result")

    def kinds(self) -> list[str]:
        return [e[0] for e in self.events]


class InMemorySessionRepository(ISessionRepository, IJobStore, IUsageLedger):
    """Sessions in a dict; ``log`` records each write in order (``("create", id)``, ...); also the job store and
    the usage ledger (``usage_records``)."""

    def __init__(self, *, fail_on: str | None = None) -> None:
        self.sessions: dict[str, ResearchSession] = {}
        self.log: list[tuple[str, str]] = []
        self.fail_on = fail_on
        self.events: dict[str, list[SessionEvent]] = {}
        self.usage_records: dict[tuple[str, str], UsageRecord] = {}

    async def record_usage(self, records: Sequence[UsageRecord]) -> None:
        self.usage_records.update({(r.session_id, r.stage): r for r in records})

    async def usage_totals(self, *, client_id: str | None, start: date, end: date) -> list[UsageTotal]:
        totals: dict[tuple[date, str, str], LLMUsage] = {}
        for r in self.usage_records.values():
            if start <= r.day <= end and client_id in (None, r.client_id):
                key = (r.day, r.client_id, r.usage.model or "")
                totals[key] = totals.get(key, LLMUsage()) + r.usage
        return [UsageTotal(client, day, model, usage) for (day, client, model), usage in sorted(totals.items())]

    async def enqueue(
        self,
        session: ResearchSession,
        *,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        waiting = [self.sessions[i].client_id for i in await self.queued()]
        mine = waiting.count(session.client_id)
        if queue_limit is not None and mine >= client_share(queue_limit, len(set(waiting)), mine):
            return Enqueued(0)
        await self.create(session)
        await self.append_events(session.session_id, [NewEvent("session.queued", {"position": mine + 1})])
        return Enqueued(mine + 1, await self.claim_next(started) if claim else None)

    async def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        stored = self.events.setdefault(session_id, [])
        for event in events:
            stored.append(SessionEvent(session_id, len(stored) + 1, event.type, dict(event.data)))
        return len(stored)

    async def events_after(self, session_id: str, after: int, *, limit: int = 500) -> Sequence[SessionEvent]:
        return [e for e in self.events.get(session_id, []) if e.seq > after][:limit]

    async def end(
        self, session_id: str, status: SessionStatus, events: Sequence[NewEvent], *, reason: str | None = None
    ) -> bool:
        session = self.sessions[session_id]
        if session.status not in ("queued", "running"):
            return False
        self.log.append(("finish", session_id))
        self.sessions[session_id] = replace(session, status=status, status_reason=reason, completed_at=utcnow())
        await self.append_events(session_id, events)
        return True

    async def claim_next(self, started: Started | None = None) -> ResearchSession | None:
        queued = sorted((s for s in self.sessions.values() if s.status == "queued"), key=lambda s: s.created_at)
        if not queued:
            return None
        first = queued[0]
        resumed = first.started_at is not None
        claimed = replace(
            first,
            status="running",
            started_at=first.started_at or utcnow(),
            resume_count=first.resume_count + int(resumed),
        )
        self.sessions[first.session_id] = claimed
        if started is not None:
            await self.append_events(first.session_id, [started(claimed)])
        return copy.deepcopy(claimed)

    async def queued(self) -> Sequence[str]:
        ordered = sorted(self.sessions.values(), key=lambda s: s.created_at)
        return [s.session_id for s in ordered if s.status == "queued"]

    async def queue_position(self, session_id: str) -> int | None:
        session = self.sessions.get(session_id)
        if session is None or session.status != "queued":
            return None
        theirs = [i for i in await self.queued() if self.sessions[i].client_id == session.client_id]
        return theirs.index(session_id) + 1

    async def statuses(self, session_ids: Sequence[str]) -> dict[str, SessionStatus]:
        return {i: self.sessions[i].status for i in session_ids if i in self.sessions}

    async def claims(self, session_ids: Sequence[str]) -> dict[str, Claim]:
        """One coordinator: every claim is its own."""
        found = [self.sessions[i] for i in session_ids if i in self.sessions]
        return {s.session_id: Claim(s.status, True, s.resume_count) for s in found}

    async def find_idempotent(self, client_id: str, key: str, since: datetime) -> ResearchSession | None:
        found = [
            s
            for s in self.sessions.values()
            if s.client_id == client_id and s.idempotency_key == key and s.created_at >= since
        ]
        return max(found, key=lambda s: s.created_at) if found else None

    def _write(self, op: str, session_id: str) -> ResearchSession:
        if op == self.fail_on:
            raise RuntimeError(f"store down during {op}")
        self.log.append((op, session_id))
        return self.sessions[session_id]

    async def create(self, session: ResearchSession) -> None:
        if self.fail_on == "create":
            raise RuntimeError("store down during create")
        self.sessions[session.session_id] = copy.deepcopy(session)
        self.log.append(("create", session.session_id))

    async def record_expert(
        self, session_id: str, expert: str, outcome: ExpertOutcome, events: Sequence[NewEvent] = ()
    ) -> None:
        self._write("record_expert", session_id).expert_outcomes[expert] = outcome
        await self.append_events(session_id, events)

    async def record_debate(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        self._write("record_debate", session_id).debate = stage
        await self.append_events(session_id, events)

    async def record_verdict(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        self._write("record_verdict", session_id).judge = stage
        await self.append_events(session_id, events)

    async def finish(self, session_id: str, status: SessionStatus) -> None:
        s = self._write("finish", session_id)
        self.sessions[session_id] = replace(s, status=status, completed_at=utcnow())

    def _read(self, session: ResearchSession) -> ResearchSession:
        """The session as the store reads it back: naming the session that retried it."""
        retry = next((s.session_id for s in self.sessions.values() if s.retried_from == session.session_id), None)
        return replace(session, retried_by=retry)

    async def get(self, session_id: str, client_id: str | None = None) -> ResearchSession | None:
        session = self.sessions.get(session_id)
        if session is None or (client_id is not None and session.client_id != client_id):
            return None
        return self._read(session)

    async def list(
        self,
        *,
        symbol: str | None,
        status: SessionStatus | None,
        limit: int,
        offset: int,
        client_id: str | None = None,
        days: tuple[date | None, date | None] = (None, None),
    ) -> tuple[list[ResearchSession], int]:
        first, last = days
        found = [
            self._read(s)
            for s in sorted(self.sessions.values(), key=lambda s: s.created_at, reverse=True)
            if (symbol is None or s.symbol == symbol)
            and (status is None or s.status == status)
            and (client_id is None or s.client_id == client_id)
            and (first is None or (s.analysis_date is not None and s.analysis_date >= first))
            and (last is None or (s.analysis_date is not None and s.analysis_date <= last))
        ]
        return found[offset : offset + limit], len(found)

    async def list_verdicts(self, where: VerdictFilter, *, limit: int) -> tuple[Sequence[StoredVerdict], int]:
        found = []
        for session in sorted(self.sessions.values(), key=lambda s: (s.created_at, s.session_id), reverse=True):
            stored = StoredVerdict.of(session)
            if stored is None or self._read(session).retried_by is not None:
                continue
            if where.client_id is not None and session.client_id != where.client_id:
                continue
            if where.symbol is not None and stored.symbol.upper() != where.symbol.upper():
                continue
            if where.engine is not None and stored.engine != where.engine:
                continue
            if (where.start is not None and stored.research_day < where.start) or (
                where.end is not None and stored.research_day > where.end
            ):
                continue
            found.append(stored)
        return found[:limit], len(found)

    async def purge(self, created_before: datetime) -> int:
        expired = {i for i, s in self.sessions.items() if s.created_at < created_before and s.status != "running"}
        for i in expired:
            del self.sessions[i]
        for i, s in self.sessions.items():
            if s.retried_from in expired:
                self.sessions[i] = replace(s, retried_from=None)
        return len(expired)

    async def ping(self) -> None:
        if self.fail_on == "ping":
            raise RuntimeError("store down")


def research_service(
    orchestrator: IResearchOrchestrationPort,
    sessions: InMemorySessionRepository | None = None,
    *,
    today: Any = None,
    settings: JobSettings | None = None,
) -> ResearchOrchestrationService:
    """The research use case over in-memory jobs (claimed at once: a poll of 10 ms)."""
    store = sessions if sessions is not None else InMemorySessionRepository()
    jobs = ResearchJobs(orchestrator, store, store, owner="test", settings=settings or JobSettings(poll_seconds=0.01))
    extra = {"today": today} if today is not None else {}
    return ResearchOrchestrationService(jobs, store, store, **extra)


class FakeBarsGateway(IPriceBarsGateway):
    """Answers each symbol with the bars it was given (none: ``[]``), or raises its failure; records calls."""

    def __init__(
        self, bars: dict[str, Sequence[DailyBar]] | None = None, failures: dict[str, Exception] | None = None
    ) -> None:
        self.series = dict(bars or {})
        self.failures = dict(failures or {})
        self.calls: list[tuple[str, date | None, date | None]] = []

    async def bars(self, symbol: str, start: date | None = None, end: date | None = None) -> list[DailyBar]:
        self.calls.append((symbol, start, end))
        if symbol in self.failures:
            raise self.failures[symbol]
        return [
            b
            for b in self.series.get(symbol, ())
            if (start is None or b.day >= start) and (end is None or b.day <= end)
        ]


def gateway_error(
    service: str = "research", message: str = "research 503 upstream_down: boom", attempts: int = 3
) -> GatewayError:
    return GatewayError(service, message, attempts=attempts)


# --- the app in-process ---------------------------------------------------------------------------


def make_settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "research_service_url": "http://research.test",
        "debate_service_url": "http://debate.test",
        "judge_service_url": "http://judge.test",
        "http_backoff_seconds": 0.0,
        "http_backoff_max_seconds": 0.0,
        "expert_timeout_seconds": 2.0,
        "debate_timeout_seconds": 2.0,
        "judge_timeout_seconds": 2.0,
        # A fresh SQLite file per app: the real lifespan migrates and opens it.
        "database_url": f"sqlite+aiosqlite:///{tempfile.mkdtemp(prefix='coordinator-test-')}/coordinator.db",
    }
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def serve(
    container: CoordinatorContainer | None = None, settings: Settings | None = None
) -> AsyncIterator[httpx.AsyncClient]:
    """The real app (lifespan entered) behind an ASGI transport."""
    app = create_app(settings or make_settings(), container=container)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


def fake_container(
    *,
    gateway: IResearchExpertGateway | None = None,
    debate: IDebateGateway | None = None,
    judge: IJudgeGateway | None = None,
    bars: IPriceBarsGateway | None = None,
    sessions: ISessionRepository | None = None,
    settings: Settings | None = None,
) -> CoordinatorContainer:
    return build_container(
        settings or make_settings(),
        research_gateway=gateway or FakeExpertGateway(),
        debate_gateway=debate or FakeDebateGateway(),
        judge_gateway=judge or FakeJudgeGateway(),
        bars_gateway=bars or FakeBarsGateway(),
        sessions=sessions or InMemorySessionRepository(),
    )


def parse_sse(text: str) -> list[dict[str, Any]]:
    """The events of an event stream: ``{"event", "id", "data"}`` each (comments dropped)."""
    events = []
    for block in text.strip().split("\n\n"):
        event: dict[str, Any] = {"id": None}
        for line in block.splitlines():
            field, _, value = line.partition(": ")
            if field in ("event", "id"):
                event[field] = value
            elif field == "data":
                event["data"] = json.loads(value)
        if "event" in event:
            events.append(event)
    return events
