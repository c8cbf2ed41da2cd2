"""The four API documents work with a client generator: openapi-python-client (the version uv.lock pins) turns
each service's ``app.openapi()`` into a Python package with no warning and no operation left out, and the
coordinator's generated client runs a research and reads its session back, typed, against the real four apps
in process (rules engine, offline snapshot; the coordinator calls its peers over ASGI transports)."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from coordinator_fakes import make_settings
from fastapi import FastAPI
from openapi_python_client import generate
from openapi_python_client.config import Config, ConfigFile, MetaType

import coordinator.main
import debate.main
import judge.main
import research.main
from coordinator.container import build_container
from coordinator.infrastructure.persistence.store import open_session_store
from debate.settings import Settings as DebateSettings
from judge.settings import Settings as JudgeSettings
from research.settings import Settings as ResearchSettings

RULES = {"analysis_engine": "rules", "log_json": False}
PEERS = {name: f"http://{name}.peer" for name in ("research", "debate", "judge")}
PEER_APPS: dict[str, Callable[[], FastAPI]] = {
    "research": lambda: research.main.create_app(ResearchSettings.model_validate(RULES)),
    "debate": lambda: debate.main.create_app(DebateSettings.model_validate(RULES)),
    "judge": lambda: judge.main.create_app(JudgeSettings.model_validate(RULES)),
}
SERVICES = ("coordinator", "research", "debate", "judge")
SYMBOL = "600519.SH"
ANALYSIS_DATE = "2024-06-28"
EXPERTS = ("technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective")


def coordinator_settings(**overrides: Any) -> Any:
    return make_settings(
        **{f"{name}_service_url": url for name, url in PEERS.items()},
        expert_timeout_seconds=60.0,
        debate_timeout_seconds=60.0,
        judge_timeout_seconds=60.0,
        log_json=False,
        **overrides,
    )


def api_document(service: str) -> dict[str, Any]:
    app = coordinator.main.create_app(coordinator_settings()) if service == "coordinator" else PEER_APPS[service]()
    return app.openapi()


def operation_ids(document: dict[str, Any]) -> set[str]:
    return {op["operationId"] for item in document["paths"].values() for op in item.values() if "operationId" in op}


def snake(operation_id: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation_id)


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[dict[str, Any], list[str]]]]:
    """Per service: its API document and what the generator reported, the packages ``<service>_client`` on
    ``sys.path`` (and taken off it, with their modules, afterwards)."""
    root = tmp_path_factory.mktemp("generated-clients")
    generated: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for service in SERVICES:
        document = api_document(service)
        source = root / f"{service}.json"
        source.write_text(json.dumps(document), encoding="utf-8")
        config = Config.from_sources(
            ConfigFile(post_hooks=[]),  # no formatting: ruff is not on the generator's PATH here, nor needed
            MetaType.NONE,
            source,
            "utf-8",
            overwrite=True,
            output_path=root / f"{service}_client",
        )
        reports = [f"{e.level.value} {e.header}: {e.detail}" for e in generate(config=config)]
        generated[service] = (document, reports)
    sys.path.insert(0, str(root))
    try:
        yield generated
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.split(".")[0] in {f"{s}_client" for s in SERVICES}]:
            del sys.modules[name]


@pytest.mark.parametrize("service", SERVICES)
def test_every_operation_is_generated_without_a_warning(
    clients: dict[str, tuple[dict[str, Any], list[str]]], service: str
) -> None:
    document, reports = clients[service]
    assert reports == []
    ids = operation_ids(document)
    every = [op for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(every), "every operation names an operationId, each its own"
    package = importlib.import_module(f"{service}_client")
    assert hasattr(package, "Client")
    modules = {p.stem for p in Path(package.__file__ or "").parent.glob("api/*/*.py") if p.stem != "__init__"}
    assert modules == {snake(i) for i in ids}


def test_operation_ids_are_short_and_named_by_the_routes(
    clients: dict[str, tuple[dict[str, Any], list[str]]],
) -> None:
    ids = {service: operation_ids(clients[service][0]) for service in SERVICES}
    assert {"runResearch", "getSession", "listSessions", "retryResearch", "cancelSession", "getSessionEvents"} <= ids[
        "coordinator"
    ]
    assert {"listExperts", "runExpert"} <= ids["research"]
    assert "runDebate" in ids["debate"]
    assert "runVerdict" in ids["judge"]
    for service in SERVICES:
        assert {"getHealth", "getReadiness"} <= ids[service]
        assert all(i.isalnum() and i[0].islower() and len(i) <= 20 for i in ids[service]), ids[service]


@pytest.fixture
async def coordinator_http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The coordinator app, its sessions in SQLite, its peers the real research, debate and judge apps."""
    async with AsyncExitStack() as stack:
        apps = {name: make() for name, make in PEER_APPS.items()}
        for app in apps.values():
            await stack.enter_async_context(app.router.lifespan_context(app))
        mounts = {url: httpx.ASGITransport(app=apps[name]) for name, url in PEERS.items()}
        peers = await stack.enter_async_context(httpx.AsyncClient(mounts=mounts))
        url = f"sqlite+aiosqlite:///{tmp_path}/coordinator.db"
        sessions, close = await open_session_store(url)
        stack.push_async_callback(close)
        settings = coordinator_settings(database_url=url)
        container = build_container(settings, http_client=peers, sessions=sessions)
        stack.push_async_callback(container.aclose)
        app = coordinator.main.create_app(settings, container=container)
        await stack.enter_async_context(app.router.lifespan_context(app))
        transport = httpx.ASGITransport(app=app)
        yield await stack.enter_async_context(httpx.AsyncClient(transport=transport, base_url="http://t"))


def generated(name: str) -> ModuleType:
    return importlib.import_module(f"coordinator_client.{name}")


async def test_the_generated_client_runs_a_research_and_reads_its_session_typed(
    clients: dict[str, tuple[dict[str, Any], list[str]]], coordinator_http: httpx.AsyncClient
) -> None:
    models = generated("models")
    client = generated("client").Client(base_url="http://t")
    client.set_async_httpx_client(coordinator_http)
    body = models.ResearchRequestBody(
        symbol=SYMBOL,
        experts=[models.ResearchRequestBodyExpertsItem(e) for e in EXPERTS],
        options=models.ResearchOptions(financial_auditor=models.FinancialAuditorOptions(limit=3)),
        analysis_date=ANALYSIS_DATE,
    )

    answer = await generated("api.coordinator.run_research").asyncio_detailed(client=client, body=body)

    assert answer.status_code == 200, answer.content
    research = answer.parsed
    assert isinstance(research, models.ResearchResponseBody)
    assert research.overall_status.value == "completed"
    assert isinstance(research.verdict, models.Verdict)
    assert isinstance(research.debate_outcome, models.DebateOutcome)
    assert isinstance(research.expert_results["technical_analyst"].data, models.TechnicalAnalystResult)

    session = await generated("api.sessions.get_session").asyncio(session_id=research.session_id, client=client)

    assert isinstance(session, models.SessionDetail)
    assert session.status.value == session.overall_status.value == research.overall_status.value
    assert isinstance(session.verdict, models.Verdict)
    assert session.verdict.action.value == research.verdict.action.value
    assert session.verdict.position_percent == research.verdict.position_percent
    assert isinstance(session.debate_outcome, models.DebateOutcome)
    assert session.debate_outcome.direction == research.debate_outcome.direction
    kinds = {name: type(record.data).__name__ for name, record in session.expert_results.additional_properties.items()}
    assert kinds == {
        "technical_analyst": "TechnicalAnalystResult",
        "financial_auditor": "FinancialAuditorResult",
        "valuation_modeler": "ValuationModelerResult",
        "macro_intelligence": "MacroIntelligenceResult",
        "catalyst_detective": "CatalystDetectiveResult",
    }
    auditor = session.expert_results.additional_properties["financial_auditor"].data
    assert auditor.signal.value in {"BULLISH", "BEARISH", "NEUTRAL"}
    assert auditor.analysis_date == ANALYSIS_DATE


async def test_the_generated_research_client_reads_an_expert_result_typed(
    clients: dict[str, tuple[dict[str, Any], list[str]]],
) -> None:
    models = importlib.import_module("research_client.models")
    run_expert = importlib.import_module("research_client.api.research.run_expert")
    app = PEER_APPS["research"]()
    async with app.router.lifespan_context(app):
        client = importlib.import_module("research_client.client").Client(base_url="http://t")
        client.set_async_httpx_client(httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t"))
        body = models.ExpertRunRequest(symbol=SYMBOL, analysis_date=ANALYSIS_DATE)
        async with client:
            result = await run_expert.asyncio(
                expert_type=models.RunExpertExpertType("technical_analyst"), client=client, body=body
            )

    assert isinstance(result, models.TechnicalAnalystResult)
    assert result.analysis_date == ANALYSIS_DATE
    assert 0.0 <= result.confidence <= 1.0
