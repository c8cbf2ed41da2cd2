"""The local server ``benchmarks.micro_clients`` calls: fixed JSON answers, an LLM-sized chat completion."""

from __future__ import annotations

import json
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

CONTENT = json.dumps({"signal": "BULLISH", "reasoning": "r" * 800})
COMPLETION = {
    "id": "c",
    "object": "chat.completion",
    "model": "m",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": CONTENT}}],
    "usage": {"prompt_tokens": 900, "completion_tokens": 100, "total_tokens": 1000},
}


async def chat(request: Request) -> Response:
    await request.body()
    return Response(json.dumps({**COMPLETION, "created": int(time.time())}), media_type="application/json")


async def peer(request: Request) -> Response:
    await request.body()
    return Response(CONTENT, media_type="application/json")


async def healthz(_: Request) -> Response:
    return Response("{}", media_type="application/json")


def create_app() -> Starlette:
    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/peer", peer, methods=["POST"]),
            Route("/healthz", healthz),
        ]
    )
