"""Over real sockets: a peer built by ``create_service_app(stop_work_on_disconnect=True)`` whose caller hangs up
aborts the model call its handler was awaiting (the ``openai`` SDK's request to the model endpoint is closed);
without the option the model call runs on after its caller has gone."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from contract_testkit import serving_in_thread
from fastapi import APIRouter, FastAPI
from starlette.types import Receive, Scope, Send

from service_kit.app_factory import create_service_app
from service_kit.llm.client import OpenAICompatibleChat
from service_kit.settings import ServiceSettings

HELD_SECONDS = 4.0
CLIENT_TIMEOUT = 1.0


class HeldModelEndpoint:
    """An OpenAI-compatible endpoint that never answers within the test: it records each call's arrival and its
    client hanging up."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.hung_up = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        self.arrived.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(HELD_SECONDS):
                while (await receive())["type"] != "http.disconnect":
                    pass
                self.hung_up.set()


def _peer(model_url: str, *, stop_work_on_disconnect: bool) -> FastAPI:
    router = APIRouter(prefix="/api/v1/kit")

    @router.post("/work")
    async def work() -> dict[str, str]:
        chat = OpenAICompatibleChat(model="m", base_url=model_url, api_key="k", timeout_seconds=60, max_retries=0)
        try:
            return {"text": (await chat.complete("prompt", None, 0.0)).text}
        finally:
            await chat.aclose()

    return create_service_app(
        service="kit-peer",
        title="Kit",
        description="d",
        settings=ServiceSettings(log_json=True),
        routers=[router],
        stop_work_on_disconnect=stop_work_on_disconnect,
    )


@pytest.fixture
def model() -> Iterator[tuple[HeldModelEndpoint, str]]:
    endpoint = HeldModelEndpoint()
    with serving_in_thread(endpoint, lifespan="off") as port:
        yield endpoint, f"http://127.0.0.1:{port}/v1"


def _call_and_give_up(port: int, endpoint: HeldModelEndpoint) -> float:
    """POST the work, give up after ``CLIENT_TIMEOUT`` (the connection is closed); returns when."""
    with httpx.Client(timeout=CLIENT_TIMEOUT) as client, pytest.raises(httpx.ReadTimeout):
        client.post(f"http://127.0.0.1:{port}/api/v1/kit/work", json={})
    assert endpoint.arrived.is_set(), "the model call had started before the client gave up"
    return time.monotonic()


def test_a_caller_hanging_up_aborts_the_peers_model_call(model: tuple[HeldModelEndpoint, str]) -> None:
    endpoint, url = model
    with serving_in_thread(_peer(url, stop_work_on_disconnect=True)) as port:
        gave_up = _call_and_give_up(port, endpoint)

        assert endpoint.hung_up.wait(5), "the model call went on after its caller had gone"
        assert time.monotonic() - gave_up < 1.0
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        # the abandoned request is the client's doing (499), not a server error
        assert 'handler="/api/v1/kit/work",method="POST",status="4xx"} 1.0' in metrics
        assert 'status="5xx"' not in metrics


def test_without_the_option_the_model_call_outlives_its_caller(model: tuple[HeldModelEndpoint, str]) -> None:
    endpoint, url = model
    with serving_in_thread(_peer(url, stop_work_on_disconnect=False)) as port:
        _call_and_give_up(port, endpoint)

        assert not endpoint.hung_up.wait(2)
