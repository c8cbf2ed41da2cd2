"""CPU per call of the HTTP clients the services use, against one local server process (the figures behind
the transport and SDK choices in benchmarks/README.md, section 5).

``uv run --no-sync python -m benchmarks.micro_clients [--calls 400]``

The server (``benchmarks/micro_server.py``, a Starlette app under uvicorn, in its own process) answers every
POST with a fixed JSON body of about 1 KB (an LLM-sized completion for the chat endpoint). The figure is the
client process's CPU time (``time.process_time``) per call, sequential and with 10 calls in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import httpx
import httpx2
import openai
from httpx_aiohttp import AiohttpTransport
from openai.types.chat import ChatCompletion

from benchmarks.harness import REPO_ROOT
from service_kit.llm.client import ChatReply
from service_kit.stack.launcher import ServiceProcess, base_env, free_port

PEER_BODY = {"symbol": "600519.SH", "options": {"k": "v" * 2000}}
MESSAGES = [{"role": "system", "content": "s" * 1500}, {"role": "user", "content": "u" * 2500}]


async def cpu_ms_per_call(call: Callable[[], Awaitable[object]], calls: int, in_flight: int) -> float:
    for _ in range(20):
        await call()
    started = time.process_time()
    for _ in range(calls // in_flight):
        await asyncio.gather(*(call() for _ in range(in_flight)))
    return (time.process_time() - started) * 1000 / (calls // in_flight * in_flight)


async def measure(base: str, calls: int) -> list[tuple[str, int, float]]:
    rows: list[tuple[str, int, float]] = []

    async def run(name: str, call: Callable[[], Awaitable[object]]) -> None:
        for in_flight in (1, 10):
            rows.append((name, in_flight, await cpu_ms_per_call(call, calls, in_flight)))
            print(f"{name:58s} in flight {in_flight:2d}: {rows[-1][2]:.2f} ms CPU per call", flush=True)

    async with httpx.AsyncClient() as plain:
        await run("peer call: httpx, its own transport", lambda: plain.post(base + "/peer", json=PEER_BODY))
    async with httpx.AsyncClient(transport=AiohttpTransport()) as on_aiohttp:
        await run(
            "peer call: httpx on httpx-aiohttp (the coordinator's)",
            lambda: on_aiohttp.post(base + "/peer", json=PEER_BODY),
        )
    async with aiohttp.ClientSession() as session:

        async def raw() -> object:
            async with session.post(base + "/peer", json=PEER_BODY) as response:
                return json.loads(await response.read())

        await run("peer call: aiohttp alone", raw)

    body = {"model": "m", "messages": MESSAGES, "temperature": 0.2, "response_format": {"type": "json_object"}}
    for label, http_client in (("httpx2", httpx2.AsyncClient()), ("aiohttp", openai.DefaultAioHttpClient())):
        llm = openai.AsyncOpenAI(api_key="k", base_url=base + "/v1", http_client=http_client, max_retries=0)
        await run(
            f"LLM call: chat.completions.create, {label}",
            lambda llm=llm: llm.chat.completions.create(  # type: ignore[misc]
                model="m", messages=MESSAGES, temperature=0.2, response_format={"type": "json_object"}
            ),
        )
        await run(
            f"LLM call: post(cast_to=ChatCompletion), {label}",
            lambda llm=llm: llm.post("/chat/completions", cast_to=ChatCompletion, body=body),  # type: ignore[misc]
        )

        async def reply_from_bytes(llm: openai.AsyncOpenAI = llm) -> object:
            return ChatReply.model_validate_json(await llm.post("/chat/completions", cast_to=bytes, body=body))

        await run(f"LLM call: post(cast_to=bytes) + ChatReply, {label}", reply_from_bytes)
        await llm.close()
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": "Bearer k"}

        async def plain_llm_post() -> object:
            async with session.post(base + "/v1/chat/completions", json=body, headers=headers) as response:
                return json.loads(await response.read())["choices"][0]["message"]["content"]

        await run("LLM call: the same POST with aiohttp alone (no SDK)", plain_llm_post)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.micro_clients", description=__doc__)
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        app, log = "benchmarks.micro_server:create_app", Path(workdir) / "server.log"
        server = ServiceProcess("micro_server", app, free_port(), base_env(), log, cwd=REPO_ROOT)
        server.start()
        try:
            server.wait_ready("/healthz")
            asyncio.run(measure(server.url, args.calls))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
