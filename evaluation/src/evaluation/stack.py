"""The four services as ``python -m uvicorn --factory <pkg>.main:create_app`` processes on free loopback ports.

Peers first, then the coordinator(s) (pointed at the peers, each on a SQLite file in a temporary folder); each waits
for ``/readyz``; every process logs to ``<log_dir>/<service>.log`` at ``LOG_LEVEL=WARNING``. ``stop`` sends
SIGTERM to each process group (SIGKILL after a grace period) and runs on every way out of ``running_stack``:
normal end, error, Ctrl-C.

The services' configuration is this process's environment, filtered: ``SNAPSHOT_DIR`` (made absolute),
``ANALYSIS_ENGINE``, ``REPORT_LANGUAGE`` and ``LLM_*`` pass through (also from a ``.env`` in the current
folder, which the services themselves do not read: they run in the log folder); the market data is the
offline snapshot; ``DATABASE_URL``, the peers' URLs and the log settings are the launcher's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
from dotenv import dotenv_values

from service_kit.server import UVICORN_OPTIONS

SERVICE_APPS = {
    "research": "research.main:create_app",
    "debate": "debate.main:create_app",
    "judge": "judge.main:create_app",
    "coordinator": "coordinator.main:create_app",
}
PASS_THROUGH = ("SNAPSHOT_DIR", "ANALYSIS_ENGINE", "REPORT_LANGUAGE")
PASS_THROUGH_PREFIX = "LLM_"
_OWN = ("DATABASE_URL", "RESEARCH_SERVICE_URL", "DEBATE_SERVICE_URL", "JUDGE_SERVICE_URL", "LOG_LEVEL", "LOG_JSON")
READY_TIMEOUT_S = 90.0
STOP_GRACE_S = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dotenv(path: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of a ``.env`` file (python-dotenv's parser); empty when there is no file."""
    if not path.is_file():
        return {}
    return {key: value for key, value in dotenv_values(path).items() if value is not None}


def service_config(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")) -> dict[str, str]:
    """The variables passed through to the services: from ``environ`` (default ``os.environ``), over ``.env``."""
    source = {**(dotenv(env_file) if env_file is not None else {}), **(os.environ if environ is None else environ)}
    config = {k: v for k, v in source.items() if k in PASS_THROUGH or k.startswith(PASS_THROUGH_PREFIX)}
    if config.get("SNAPSHOT_DIR"):
        config["SNAPSHOT_DIR"] = str(Path(config["SNAPSHOT_DIR"]).expanduser().resolve())
    return config


def base_env(config: Mapping[str, str]) -> dict[str, str]:
    """This process's environment minus what would configure the services another way, plus ``config``."""
    dropped = (*PASS_THROUGH, *_OWN, PASS_THROUGH_PREFIX, "MARKET_DATA")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.update({"LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", **config})
    return env


def process_cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process from ``/proc/<pid>/stat``; None where there is no such file."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Service:
    name: str
    app: str
    """``package.main:create_app`` for ``uvicorn --factory``."""
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, cwd: Path) -> None:
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "uvicorn", "--factory", self.app),
                *("--host", "127.0.0.1", "--port", str(self.port), "--no-access-log", *UVICORN_OPTIONS),
                *("--timeout-graceful-shutdown", "5"),
            ],
            cwd=cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the evaluator only; it stops the services itself
        )

    def wait_ready(self, deadline: float) -> None:
        last = "no answer"
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                response = httpx.get(self.url + "/readyz", timeout=2.0)
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text[:200]}"
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {READY_TIMEOUT_S:g} s ({last}):\n{self.log_tail()}")

    def signal(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)

    def wait(self, deadline: float) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait(timeout=STOP_GRACE_S)

    def close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Stack:
    services: dict[str, Service]

    @property
    def coordinator_urls(self) -> list[str]:
        return [service.url for name, service in self.services.items() if name.startswith("coordinator")]

    @property
    def research_url(self) -> str:
        return self.services["research"].url

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) each service process has used so far (Linux ``/proc``; empty elsewhere)."""
        used = {}
        for name, service in self.services.items():
            if service.process is not None:
                seconds = process_cpu_seconds(service.process.pid)
                if seconds is not None:
                    used[name] = seconds
        return used

    def stop(self) -> None:
        """SIGTERM to every service at once (coordinator first), then wait; SIGKILL what outlives the grace."""
        running = list(reversed(self.services.values()))
        for service in running:
            service.signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for service in running:
            service.wait(deadline)
            service.close_log()


def coordinator_names(count: int) -> list[str]:
    return ["coordinator", *(f"coordinator-{i}" for i in range(2, count + 1))]


@contextlib.contextmanager
def running_stack(log_dir: Path, config: Mapping[str, str], coordinators: int = 1) -> Iterator[Stack]:
    """Start the services with ``config`` (``service_config``, possibly with ``LLM_BASE_URL`` replaced by the
    evaluator's proxy) and stop them on the way out, whatever it is. ``coordinators`` > 1 starts that many
    coordinators on the same peers, each with a SQLite file of its own (the coordinator is the stack's busiest
    process: one is bound to one core)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    apps = {name: SERVICE_APPS[name] for name in ("research", "debate", "judge")}
    apps.update({name: SERVICE_APPS["coordinator"] for name in coordinator_names(coordinators)})
    ports = {name: free_port() for name in apps}
    urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    stack = Stack({})
    with tempfile.TemporaryDirectory(prefix="research-eval-db-") as db_dir:
        try:
            for name, app in apps.items():
                env = base_env(config)
                if name.startswith("coordinator"):
                    env.update(
                        DATABASE_URL=f"sqlite+aiosqlite:///{Path(db_dir) / f'{name}.db'}",
                        RESEARCH_SERVICE_URL=urls["research"],
                        DEBATE_SERVICE_URL=urls["debate"],
                        JUDGE_SERVICE_URL=urls["judge"],
                    )
                service = Service(name, app, ports[name], env, log_dir / f"{name}.log")
                stack.services[name] = service
                service.start(cwd=log_dir)
            deadline = time.monotonic() + READY_TIMEOUT_S
            for service in stack.services.values():
                service.wait_ready(deadline)
            yield stack
        finally:
            stack.stop()
