"""Start services as real uvicorn processes on free loopback ports, wait for /readyz, stop them cleanly."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import llm_replies
from fake_llm_server import FakeLLMClient

from evaluation.stack import SERVICE_APPS, free_port
from service_kit.server import UVICORN_OPTIONS

REPO_ROOT = Path(__file__).resolve().parent.parent
E2E_DIR = Path(__file__).resolve().parent


@dataclass
class ServiceProcess:
    name: str
    app: str
    """``package.module:factory`` for ``uvicorn --factory``."""
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    access_log: bool = False
    """uvicorn's access line per request (on in the Docker image; off by default here)."""
    _log_file: object = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        if self._log_file is not None:
            self._log_file.close()  # type: ignore[attr-defined]
        log = self.log_path.open("ab")
        self._log_file = log
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                self.app,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                *([] if self.access_log else ["--no-access-log"]),
                *UVICORN_OPTIONS,
                "--timeout-graceful-shutdown",
                "5",
            ],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, path: str = "/readyz", timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                response = httpx.get(self.url + path, timeout=1.0)
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text[:200]}"
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout}s ({last}):\n{self.log_tail()}")

    def restart(self, path: str = "/readyz") -> None:
        """Start again on the same port (after ``kill``/``stop``) and wait until ``path`` answers 200."""
        self.stop()
        self.start()
        self.wait_ready(path)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._log_file is not None:
            self._log_file.close()  # type: ignore[attr-defined]
            self._log_file = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def base_env(**overrides: str) -> dict[str, str]:
    """The parent environment minus anything that would point a service at a real LLM or provider."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "ANALYSIS_ENGINE", "MARKET_DATA"))}
    env.update({"LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"})
    env.update(overrides)
    return env


@dataclass
class Stack:
    services: dict[str, ServiceProcess]

    def __getitem__(self, name: str) -> ServiceProcess:
        return self.services[name]

    def stop(self) -> None:
        for service in reversed(list(self.services.values())):
            service.stop()


@contextlib.contextmanager
def running_stack(
    workdir: Path,
    *,
    common_env: Mapping[str, str] | None = None,
    per_service_env: Mapping[str, Mapping[str, str]] | None = None,
    only: tuple[str, ...] = ("research", "debate", "judge", "coordinator"),
    access_log: bool = False,
    apps: Mapping[str, str] | None = None,
) -> Iterator[Stack]:
    """Start the named services (peers first, the coordinator last, pointed at the others); ``apps`` replaces
    some services' ``uvicorn --factory`` targets (the benchmarks' floor and profiled coordinator)."""
    factories = {**SERVICE_APPS, **(apps or {})}
    ports = {name: free_port() for name in SERVICE_APPS}
    urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    services: dict[str, ServiceProcess] = {}
    stack = Stack(services)
    try:
        for name in ("research", "debate", "judge", "coordinator"):
            if name not in only:
                continue
            env = base_env(**dict(common_env or {}))
            if name == "coordinator":
                env.setdefault("DATABASE_URL", f"sqlite+aiosqlite:///{workdir / 'coordinator.db'}")
                env.update(
                    RESEARCH_SERVICE_URL=urls["research"],
                    DEBATE_SERVICE_URL=urls["debate"],
                    JUDGE_SERVICE_URL=urls["judge"],
                )
            env.update(dict((per_service_env or {}).get(name, {})))
            service = ServiceProcess(
                name, factories[name], ports[name], env, workdir / f"{name}.log", access_log=access_log
            )
            services[name] = service
            service.start()
        for service in services.values():
            service.wait_ready("/healthz" if service.name == "coordinator" and len(only) < 4 else "/readyz")
        yield stack
    finally:
        stack.stop()


@contextlib.contextmanager
def running_service(name: str, workdir: Path, **env: str) -> Iterator[ServiceProcess]:
    """One service (``research``, ``debate``, ``judge``) alone on a free port with ``base_env(**env)``,
    ready (``/readyz``) while the block runs; its log is ``workdir / f"{name}.log"``."""
    service = ServiceProcess(name, SERVICE_APPS[name], free_port(), base_env(**env), workdir / f"{name}.log")
    service.start()
    try:
        service.wait_ready()
        yield service
    finally:
        service.stop()


class OneReplyChatHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint in the test's own process whose every answer is ``reply(api_key)``:
    subclasses say what it answers (the scripted fake server cannot quote the key or name a 10 MB model)."""

    def reply(self, api_key: str) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        status, body = self.reply(self.headers.get("authorization", "").removeprefix("Bearer "))
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *_args: object) -> None:
        pass


def chat_completion_body(content: str, model: str = "fake-model") -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {"model": model, "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


@contextlib.contextmanager
def serving_chat(handler: type[OneReplyChatHandler]) -> Iterator[str]:
    """``handler`` on a free loopback port, in a thread; yields its ``LLM_BASE_URL``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


@dataclass
class FakeLLM:
    """The fake OpenAI-compatible server in its own process, and a client to drive it."""

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
def running_fake_llm(workdir: Path, script: Mapping[str, object] | None = None) -> Iterator[FakeLLM]:
    """Start ``fake_llm_server`` as ``uvicorn --factory`` on a free port (tests-e2e on PYTHONPATH)."""
    env = base_env(PYTHONPATH=os.pathsep.join(p for p in (str(E2E_DIR), os.environ.get("PYTHONPATH", "")) if p))
    process = ServiceProcess("fake_llm", "fake_llm_server:create_app", free_port(), env, workdir / "fake_llm.log")
    process.start()
    try:
        process.wait_ready("/healthz")
        fake = FakeLLM(process, FakeLLMClient(process.url))
        if script is not None:
            fake.client.put_script(dict(script))
        yield fake
    finally:
        process.stop()
