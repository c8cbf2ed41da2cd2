"""A service (the coordinator by default) under pyinstrument, for the profiling section (benchmark code).

``uvicorn --factory benchmarks.profiled_app:create_app`` builds the real app from the environment, exactly as
``coordinator.main:create_app`` does (or the factory named by ``PROFILE_TARGET``), and wraps it in a thin ASGI
layer that answers two extra routes: ``POST /_bench/profile/start`` starts a pyinstrument sampling profiler on the
event-loop thread; ``POST /_bench/profile/stop`` stops it and writes ``<PROFILE_OUT>.txt`` / ``.html``
(``PROFILE_OUT`` from the environment). Every other request goes to the app untouched.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from pyinstrument import Profiler

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ProfilingWrapper:
    def __init__(self, app: ASGIApp, out: Path, interval: float = 0.001) -> None:
        self.app = app
        self.out = out
        self.interval = interval
        self.profiler: Profiler | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/_bench/profile/"):
            action = scope["path"].rsplit("/", 1)[-1]
            body = self._start() if action == "start" else self._stop() if action == "stop" else {"error": action}
            payload = json.dumps(body).encode()
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": payload})
            return
        await self.app(scope, receive, send)

    def _start(self) -> dict[str, Any]:
        if self.profiler is None:
            # async_mode="disabled": sample the whole event-loop thread (every task), not one coroutine.
            self.profiler = Profiler(interval=self.interval, async_mode="disabled")
            self.profiler.start()
        return {"profiling": True}

    def _stop(self) -> dict[str, Any]:
        if self.profiler is None:
            return {"profiling": False}
        profiler, self.profiler = self.profiler, None
        session = profiler.stop()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        text = profiler.output_text(unicode=True, color=False, show_all=False)
        self.out.with_suffix(".txt").write_text(text, encoding="utf-8")
        self.out.with_suffix(".html").write_text(profiler.output_html(), encoding="utf-8")
        root = session.root_frame()
        return {
            "profiling": False,
            "duration_s": session.duration,
            "cpu_time_s": session.cpu_time,
            "samples": session.sample_count,
            "functions": inclusive_times(root) if root is not None else [],
        }


def inclusive_times(root: Any, top: int = 40) -> list[dict[str, Any]]:
    """Inclusive time per function over the whole tree (a function counted once per stack, so recursion
    is not double-counted), largest first; ``ours`` marks the project's own code."""
    totals: dict[tuple[str, str], float] = {}

    def walk(frame: Any, on_stack: frozenset[tuple[str, str]]) -> None:
        key = (str(frame.function), str(frame.file_path_short or frame.file_path or ""))
        if key not in on_stack:
            totals[key] = totals.get(key, 0.0) + float(frame.time)
            on_stack = on_stack | {key}
        for child in frame.children:
            walk(child, on_stack)

    walk(root, frozenset())
    ours = ("coordinator/", "shared_contracts/")
    ranked = sorted(totals.items(), key=lambda kv: kv[1], reverse=True)
    return [
        {"function": f, "file": path, "seconds": round(t, 4), "ours": any(o in path for o in ours)}
        for (f, path), t in ranked[:top]
    ] + [
        {"function": f, "file": path, "seconds": round(t, 4), "ours": True}
        for (f, path), t in ranked[top:]
        if any(o in path for o in ours) and t >= 0.01
    ]


def create_app() -> ASGIApp:
    """The app named by ``PROFILE_TARGET`` (``module:factory``, default the coordinator's), wrapped."""
    module_name, _, factory = os.environ.get("PROFILE_TARGET", "coordinator.main:create_app").partition(":")
    target = getattr(importlib.import_module(module_name), factory)
    out = Path(os.environ.get("PROFILE_OUT", "coordinator-profile"))
    return ProfilingWrapper(target(), out)
