"""Running the debate app in-process for HTTP tests (lifespan entered, ASGI transport), and an LLM endpoint that
answers as the three agents."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
from contract_testkit import chat_completion
from debate_fakes import BEAR_JSON, BULL_JSON, RESOLUTION_JSON
from fastapi import FastAPI

from debate.container import DebateContainer
from debate.main import create_app
from debate.settings import Settings


def rules_settings(**overrides: object) -> Settings:
    values: dict[str, object] = {"analysis_engine": "rules", "log_json": False, **overrides}
    return Settings.model_validate(values)


@asynccontextmanager
async def debate_client(
    settings: Settings | None = None, container: DebateContainer | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings or (container.settings if container else rules_settings()), container=container)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client, app


def llm_settings(**overrides: Any) -> Settings:
    values = {
        "analysis_engine": "llm",
        "llm_base_url": "http://llm.test/v1",
        "llm_api_key": "k",
        "llm_model": "test-model",
        "llm_max_retries": 0,
        "log_json": False,
        **overrides,
    }
    return Settings.model_validate(values)


def llm_completion(content: str, model: str = "test-model") -> httpx2.Response:
    return chat_completion(content, model, usage=(10, 5), completion_id="c1")


class RecordingLLMServer:
    """Answers as the three agents would, by the role named in the system message; records requests."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.answers = answers or {
            "BULL ADVOCATE": BULL_JSON,
            "BEAR ADVOCATE": BEAR_JSON,
            "RESOLUTION": RESOLUTION_JSON,
        }
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append({"url": str(request.url), "body": body})
        system = body["messages"][0]["content"]
        role = next(r for r in self.answers if r in system)
        return llm_completion(self.answers[role])
