"""A fake OpenAI-compatible chat server, in its own process: tooling for the end-to-end tests, the benchmarks and
the evaluation's tests, which stand it in for a remote LLM (no service uses it).

Scripted replies: each rule matches a substring of the system + user prompt and answers with a reply
(a string, or an object sent as JSON text), an optional HTTP status (a fault), a latency, an optional
number of uses, and the ``usage`` it reports: by default the estimate below, ``{"prompt_tokens": n,
"completion_tokens": m}`` for fixed counts, or ``false`` for none (an endpoint that reports no usage). Rules
come from the JSON file named by FAKE_LLM_SCRIPT, or are replaced at run time via ``PUT /_control/script``.
Every call is recorded (``GET /_control/calls``) with the token counts it stands for (``usage_reported``: whether
the reply said them; by default an estimate: one token per 4 bytes of UTF-8, at least 1); ``?prompts=true``
adds each call's prompt text, ``?in_flight=true`` the calls still waiting out their latency, ``?abandoned=true``
the calls whose client hung up while they waited (``status: null``, ``abandoned``: when, ``time.monotonic``; they
are never answered, so they are not among the answered calls). A prompt no rule matches is answered 500 and
recorded with ``rule: null``. ``POST /_control/reset`` forgets the calls
and releases the ones still held by a latency (they answer at once and are not recorded).

``FakeLLMClient`` drives a running server; ``running_fake_llm`` starts one (``FakeLLM``: its process and a client).

Run: ``python -m uvicorn --factory stack_fakes.fake_llm:create_app --port N``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from service_kit.stack.launcher import ServiceProcess, base_env, free_port
from stack_fakes import llm_replies

CHAT_PATH = "/v1/chat/completions"


def estimate_tokens(text: str) -> int:
    return max(1, len(text.encode("utf-8")) // 4)


@dataclass
class Rule:
    match: str
    reply: Any = None
    status: int = 200
    latency_ms: float | None = None
    times: int | None = None
    name: str = ""
    usage: dict[str, int] | bool = True

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rule:
        return cls(
            match=data.get("match", ""),
            reply=data.get("reply"),
            status=int(data.get("status", 200)),
            latency_ms=data.get("latency_ms"),
            times=data.get("times"),
            name=data.get("name", data.get("match", "")),
            usage=data.get("usage", True),
        )


@dataclass
class Script:
    rules: list[Rule] = field(default_factory=list)
    default_latency_ms: float = 0.0

    def pick(self, prompt: str) -> Rule | None:
        for rule in self.rules:
            if rule.match in prompt and (rule.times is None or rule.times > 0):
                if rule.times is not None:
                    rule.times -= 1
                return rule
        return None


def load_script(data: dict[str, Any]) -> Script:
    return Script(
        rules=[Rule.from_json(r) for r in data.get("rules", [])],
        default_latency_ms=float(data.get("default_latency_ms", 0.0)),
    )


def create_app() -> ASGIApp:
    app = FastAPI(title="fake OpenAI-compatible server")
    path = os.environ.get("FAKE_LLM_SCRIPT")
    state: dict[str, Any] = {
        "script": load_script(json.loads(Path(path).read_text(encoding="utf-8"))) if path else Script(),
        "calls": [],
        "in_flight": [],
        "abandoned": [],
        "generation": 0,
    }

    def finish(record: dict[str, Any], generation: int) -> None:
        if generation == state["generation"]:  # a call started before a reset is forgotten with the rest
            state["calls"].append(record)

    async def chat(body: dict[str, Any], started: float, hung_up: asyncio.Event) -> tuple[int, dict[str, Any]] | None:
        """The status and body of the answer, or None when the client hung up before it (nothing is answered)."""
        messages = body.get("messages", [])
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        script: Script = state["script"]
        rule = script.pick(prompt)
        latency = rule.latency_ms if rule and rule.latency_ms is not None else script.default_latency_ms
        record: dict[str, Any] = {
            "rule": rule.name if rule else None,
            "model": body.get("model"),
            "prompt_tokens": estimate_tokens(prompt),
            "prompt_bytes": len(prompt.encode("utf-8")),
            "started": started,
            "prompt": prompt,
        }
        generation = state["generation"]
        state["in_flight"].append(record)
        try:
            # The reply leaves ``latency`` after the request arrived: reading and matching the prompt
            # count towards it, so the server's own work is not added to every call (benchmarks).
            remaining = started + latency / 1000 - time.monotonic()
            if remaining > 0:
                release: asyncio.Event = state.setdefault("release", asyncio.Event())
                await _first_of(release.wait(), hung_up.wait(), within=remaining)
        finally:
            state["in_flight"] = [r for r in state["in_flight"] if r is not record]
        if hung_up.is_set():
            if generation == state["generation"]:
                state["abandoned"].append({**record, "status": None, "abandoned": time.monotonic()})
            return None
        if rule is None:
            record.update(status=500, completion_tokens=0, ended=time.monotonic())
            finish(record, generation)
            return 500, {"error": {"message": "no scripted reply matches this prompt"}}
        if rule.status != 200:
            record.update(status=rule.status, completion_tokens=0, ended=time.monotonic())
            finish(record, generation)
            return rule.status, {"error": {"message": f"scripted fault {rule.status}"}}
        text = rule.reply if isinstance(rule.reply, str) else json.dumps(rule.reply, ensure_ascii=False)
        completion_tokens = estimate_tokens(text)
        if isinstance(rule.usage, dict):
            record["prompt_tokens"] = int(rule.usage.get("prompt_tokens", record["prompt_tokens"]))
            completion_tokens = int(rule.usage.get("completion_tokens", completion_tokens))
        record.update(status=200, completion_tokens=completion_tokens, ended=time.monotonic())
        record["usage_reported"] = rule.usage is not False
        finish(record, generation)
        reply: dict[str, Any] = {
            "id": f"fake-{len(state['calls'])}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        if record["usage_reported"]:
            reply["usage"] = {
                "prompt_tokens": record["prompt_tokens"],
                "completion_tokens": completion_tokens,
                "total_tokens": record["prompt_tokens"] + completion_tokens,
            }
        return 200, reply

    @app.put("/_control/script")
    async def put_script(request: Request) -> dict[str, int]:
        state["script"] = load_script(await request.json())
        return {"rules": len(state["script"].rules)}

    @app.get("/_control/calls")
    async def calls(prompts: bool = False, in_flight: bool = False, abandoned: bool = False) -> list[dict[str, Any]]:
        """Every answered call so far; ``?prompts=true`` includes each call's full prompt text,
        ``?in_flight=true`` adds the calls still waiting out their latency (``status: null``), ``?abandoned=true``
        the calls whose client hung up before the answer."""
        found = list(state["calls"])
        if in_flight:
            found += [{**call, "status": None} for call in state["in_flight"]]
        if abandoned:
            found += state["abandoned"]
        if prompts:
            return found
        return [{k: v for k, v in call.items() if k != "prompt"} for call in found]

    @app.post("/_control/reset")
    async def reset() -> dict[str, str]:
        state["calls"].clear()
        state["in_flight"].clear()
        state["abandoned"].clear()
        state["generation"] += 1
        if "release" in state:  # calls held by a latency answer now (and are not recorded)
            state.pop("release").set()
        return {"status": "ok"}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        """The chat endpoint in plain ASGI (it stands in for a remote LLM and shares the benchmark
        machine's cores, so it should cost little); everything else through FastAPI."""
        if scope["type"] != "http" or scope["path"] != CHAT_PATH or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        started = time.monotonic()
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        try:
            body = json.loads(b"".join(chunks))
        except ValueError:
            status, reply = 400, {"error": {"message": "the body is not JSON"}}
        else:
            hung_up = asyncio.Event()
            listening = asyncio.create_task(_until_disconnect(receive, hung_up))
            try:
                answer = await chat(body, started, hung_up)
            finally:
                listening.cancel()
            if answer is None:
                return
            status, reply = answer
        payload = json.dumps(reply, ensure_ascii=False).encode("utf-8")
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    return serve


async def _until_disconnect(receive: Receive, hung_up: asyncio.Event) -> None:
    """Sets ``hung_up`` when the client closes the connection (the request's body has been read)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    hung_up.set()


async def _first_of(*waits: Coroutine[Any, Any, Any], within: float) -> None:
    """Wait until one of ``waits`` ends or ``within`` seconds pass; the others are cancelled."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


class FakeLLMClient:
    """Drives a running fake server: replace its script, read and reset its recorded calls."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    @property
    def base_url(self) -> str:
        """What ``LLM_BASE_URL`` must be for the openai SDK."""
        return f"{self.url}/v1"

    def put_script(self, script: dict[str, Any]) -> None:
        httpx.put(f"{self.url}/_control/script", json=script, timeout=10).raise_for_status()

    def calls(self, *, prompts: bool = False, in_flight: bool = False, abandoned: bool = False) -> list[dict[str, Any]]:
        params = {"prompts": prompts, "in_flight": in_flight, "abandoned": abandoned}
        response = httpx.get(f"{self.url}/_control/calls", params=params, timeout=10)
        response.raise_for_status()
        result: list[dict[str, Any]] = response.json()
        return result

    def reset(self, script: dict[str, Any] | None = None) -> None:
        """Forget the recorded calls (and install ``script`` when given)."""
        httpx.post(f"{self.url}/_control/reset", timeout=10).raise_for_status()
        if script is not None:
            self.put_script(script)


@dataclass
class FakeLLM:
    """The fake server in its own process, and a client to drive it."""

    process: ServiceProcess
    client: FakeLLMClient

    def calls_by_role(self) -> dict[str, int]:
        """The calls the fake server recorded so far, counted per role (``llm_replies`` rule name)."""
        return llm_replies.calls_by_role(self.client.calls())

    def env(self, model: str = "fake-e2e-model", **extra: str) -> dict[str, str]:
        """The variables that point research/debate/judge at this server (no SDK retries unless asked)."""
        return {
            "LLM_BASE_URL": self.client.base_url,
            "LLM_API_KEY": "sk-fake-e2e",
            "LLM_MODEL": model,
            "ANALYSIS_ENGINE": "llm",
            "LLM_MAX_RETRIES": "0",
            **extra,
        }


@contextlib.contextmanager
def running_fake_llm(
    workdir: Path, script: Mapping[str, object] | None = None, log_level: str = "INFO"
) -> Iterator[FakeLLM]:
    """This module's app under uvicorn on a free port, ready (``/healthz``) and with ``script`` installed while the
    block runs; its log is ``workdir / "fake_llm.log"``."""
    env = base_env(LOG_LEVEL=log_level)
    process = ServiceProcess("fake_llm", f"{__name__}:create_app", free_port(), env, workdir / "fake_llm.log")
    process.start()
    try:
        process.wait_ready("/healthz")
        fake = FakeLLM(process, FakeLLMClient(process.url))
        if script is not None:
            fake.client.put_script(dict(script))
        yield fake
    finally:
        process.stop()
