"""A fake OpenAI-compatible chat server for end-to-end tests and benchmarks (test code, its own process).

Scripted replies: each rule matches a substring of the system + user prompt and answers with a reply
(a string, or an object sent as JSON text), an optional HTTP status (a fault), a latency, and an optional
number of uses. Rules come from the JSON file named by FAKE_LLM_SCRIPT, or are replaced at run time via
``PUT /_control/script``. Every call is recorded (``GET /_control/calls``) with the token counts the
server reports in ``usage`` (an estimate: one token per 4 bytes of UTF-8, at least 1).

Run: ``python -m uvicorn --factory fake_llm_server:create_app --port N`` (with tests-e2e on PYTHONPATH).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse


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

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rule:
        return cls(
            match=data.get("match", ""),
            reply=data.get("reply"),
            status=int(data.get("status", 200)),
            latency_ms=data.get("latency_ms"),
            times=data.get("times"),
            name=data.get("name", data.get("match", "")),
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


def create_app() -> FastAPI:
    app = FastAPI(title="fake OpenAI-compatible server")
    path = os.environ.get("FAKE_LLM_SCRIPT")
    state: dict[str, Any] = {
        "script": load_script(json.loads(Path(path).read_text(encoding="utf-8"))) if path else Script(),
        "calls": [],
    }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        started = time.monotonic()
        body = await request.json()
        messages = body.get("messages", [])
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        script: Script = state["script"]
        rule = script.pick(prompt)
        latency = rule.latency_ms if rule and rule.latency_ms is not None else script.default_latency_ms
        if latency:
            await asyncio.sleep(latency / 1000)
        record: dict[str, Any] = {
            "rule": rule.name if rule else None,
            "model": body.get("model"),
            "prompt_tokens": estimate_tokens(prompt),
            "prompt_bytes": len(prompt.encode("utf-8")),
            "started": started,
        }
        if rule is None:
            record.update(status=500, completion_tokens=0, ended=time.monotonic())
            state["calls"].append(record)
            return JSONResponse({"error": {"message": "no scripted reply matches this prompt"}}, status_code=500)
        if rule.status != 200:
            record.update(status=rule.status, completion_tokens=0, ended=time.monotonic())
            state["calls"].append(record)
            return JSONResponse({"error": {"message": f"scripted fault {rule.status}"}}, status_code=rule.status)
        text = rule.reply if isinstance(rule.reply, str) else json.dumps(rule.reply, ensure_ascii=False)
        completion_tokens = estimate_tokens(text)
        record.update(status=200, completion_tokens=completion_tokens, ended=time.monotonic())
        state["calls"].append(record)
        return JSONResponse(
            {
                "id": f"fake-{len(state['calls'])}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": record["prompt_tokens"],
                    "completion_tokens": completion_tokens,
                    "total_tokens": record["prompt_tokens"] + completion_tokens,
                },
            }
        )

    @app.put("/_control/script")
    async def put_script(request: Request) -> dict[str, int]:
        state["script"] = load_script(await request.json())
        return {"rules": len(state["script"].rules)}

    @app.get("/_control/calls")
    async def calls() -> list[dict[str, Any]]:
        return list(state["calls"])

    @app.post("/_control/reset")
    async def reset() -> dict[str, str]:
        state["calls"].clear()
        return {"status": "ok"}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
