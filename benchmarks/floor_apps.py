"""The floor of section 6 (benchmark code): the product's topology and libraries doing none of its work.

Four FastAPI apps served by uvicorn exactly as the services are (``service_kit.stack.launcher``), making the
same calls over the same clients (the coordinator's ``peer_http_client`` with its default pool size, the
analysing services' ``OpenAICompatibleChat`` configured from the same environment) to the same fake LLM with
the same replies:

    client ─▶ coordinator ─┬▶ research (5 ∥, one LLM call each) ─▶ debate (bull ∥ bear, then resolution)
                           └─────────────────────────────────────▶ judge (one LLM call) ─▶ client

No LangGraph, no session store, no domain code, no middleware, no checks of a reply beyond the client's own: what a
research costs here is what the frameworks, the clients, the processes and the machine cost, so a section
measuring the product and this floor in the same run tells what of the rest is ours.

``uvicorn --factory benchmarks.floor_apps:create_<service>``; the coordinator reads the peers' URLs from the
same variables as the real one (``RESEARCH_SERVICE_URL``...), the others read ``LLM_*``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI, Request

from coordinator.infrastructure.adapters.peer_http import peer_http_client
from coordinator.settings import Settings as CoordinatorSettings
from service_kit.llm.client import LLMCompletion, OpenAICompatibleChat, build_chat_client
from service_kit.logging import configure_logging
from service_kit.settings import EngineSettings
from service_kit.stack.api_paths import DEBATE_RUN, EXPERT_PATH, JUDGE_VERDICT, RESEARCH
from stack_fakes.llm_replies import MATCH

TEMPERATURE = 0.2
DEFAULT_POOL = CoordinatorSettings.model_fields["http_max_connections"].default


def _app(lifespan: Callable[[FastAPI], Any]) -> FastAPI:
    configure_logging(os.environ.get("LOG_LEVEL", "WARNING"))
    app = FastAPI(lifespan=lifespan)

    @app.get("/readyz")
    async def readyz() -> dict[str, str]:
        return {"status": "ready"}

    return app


def _llm_app(routes: Callable[[FastAPI, Callable[[], OpenAICompatibleChat]], None]) -> FastAPI:
    """An analysing service: one chat client built at start-up, closed at shutdown."""
    chat: list[OpenAICompatibleChat] = []

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        chat.append(build_chat_client(EngineSettings()))
        yield
        await chat[0].aclose()

    app = _app(lifespan)
    routes(app, lambda: chat[0])
    return app


async def _ask(chat: OpenAICompatibleChat, role: str, prompt: str) -> LLMCompletion:
    return await chat.complete(prompt, MATCH[role], TEMPERATURE)


def create_research() -> FastAPI:
    def routes(app: FastAPI, chat: Callable[[], OpenAICompatibleChat]) -> None:
        @app.post(EXPERT_PATH)
        async def expert(expert: str, body: dict[str, Any]) -> dict[str, Any]:
            reply = await _ask(chat(), expert, f"Analyse {body.get('symbol')}.")
            return {"expert_type": expert, "reply": reply.text}

    return _llm_app(routes)


def create_debate() -> FastAPI:
    def routes(app: FastAPI, chat: Callable[[], OpenAICompatibleChat]) -> None:
        @app.post(DEBATE_RUN)
        async def debate(body: dict[str, Any]) -> dict[str, Any]:
            evidence = str(body.get("expert_results"))
            bull, bear = await asyncio.gather(
                _ask(chat(), "bull_advocate", evidence), _ask(chat(), "bear_advocate", evidence)
            )
            resolution = await _ask(chat(), "resolution", bull.text + bear.text)
            return {"bull": bull.text, "bear": bear.text, "resolution": resolution.text}

    return _llm_app(routes)


def create_judge() -> FastAPI:
    def routes(app: FastAPI, chat: Callable[[], OpenAICompatibleChat]) -> None:
        @app.post(JUDGE_VERDICT)
        async def verdict(body: dict[str, Any]) -> dict[str, Any]:
            reply = await _ask(chat(), "judge", str(body.get("debate_outcome")))
            return {"verdict": reply.text}

    return _llm_app(routes)


def create_coordinator() -> FastAPI:
    research, debate, judge = (
        os.environ[f"{name}_SERVICE_URL"].rstrip("/") for name in ("RESEARCH", "DEBATE", "JUDGE")
    )
    peers: list[httpx.AsyncClient] = []

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        peers.append(peer_http_client(DEFAULT_POOL))
        yield
        await peers[0].aclose()

    async def post(url: str, body: dict[str, Any]) -> Any:
        response = await peers[0].post(url, json=body)
        response.raise_for_status()
        return response.json()

    app = _app(lifespan)

    @app.post(RESEARCH)
    async def run_research(request: Request) -> dict[str, Any]:
        body = await request.json()
        symbol, experts = body["symbol"], body["experts"]
        replies = await asyncio.gather(
            *(post(research + EXPERT_PATH.format(expert=e), {"symbol": symbol}) for e in experts)
        )
        results = {e: {"status": "success", "data": r} for e, r in zip(experts, replies, strict=True)}
        outcome = await post(debate + DEBATE_RUN, {"symbol": symbol, "expert_results": replies})
        verdict = await post(judge + JUDGE_VERDICT, {"symbol": symbol, "debate_outcome": outcome})
        return {"overall_status": "completed", "expert_results": results, "debate_outcome": outcome, "verdict": verdict}

    return app
