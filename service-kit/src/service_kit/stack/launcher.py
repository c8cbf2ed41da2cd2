"""The services as ``python -m uvicorn --factory <package>.main:create_app`` processes on free loopback ports.

Every Python caller that starts the stack starts it here: the end-to-end tests, the walk-forward evaluation and
the benchmarks; ``make run`` starts the same commands from the root Procfile under honcho (the server options of
``SERVICE_OPTIONS``; ``tests-e2e/test_deploy_server.py`` checks the Procfile and the image spell them).

``running_stack`` starts the peers first, then the coordinator(s), pointed at the peers, each on a SQLite file of
its own; each process logs to ``<workdir>/<name>.log`` and runs in ``workdir`` (the services read a ``.env`` in
their working folder: the repository's is not read unless asked for). Readiness is ``/readyz`` answering 200; a
process that exits or never becomes ready raises with the tail of its log. Stopping sends SIGTERM to every
process group at once and SIGKILL to what outlives the grace period, on every way out of the block.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from signal import SIGKILL, SIGTERM
from typing import IO

import httpx

from service_kit.server import UVICORN_OPTIONS

SERVICE_APPS = {
    "research": "research.main:create_app",
    "debate": "debate.main:create_app",
    "judge": "judge.main:create_app",
    "coordinator": "coordinator.main:create_app",
}
"""Each service's ``uvicorn --factory`` target, peers first (the order they start in)."""
SERVICES = tuple(SERVICE_APPS)
PEERS = ("research", "debate", "judge")
SERVICE_OPTIONS = (*UVICORN_OPTIONS, "--timeout-graceful-shutdown", "5")
ISOLATING = ("LLM_", "ANALYSIS_ENGINE", "MARKET_DATA")
"""Prefixes of the variables ``base_env`` drops by default: what would point a service at a real LLM or provider."""
READY_TIMEOUT_S = 90.0
STOP_GRACE_S = 10.0


def free_port() -> int:
    """A TCP port nothing listens on at this moment, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def base_env(*, drop: tuple[str, ...] = ISOLATING, **overrides: str) -> dict[str, str]:
    """This process's environment minus the variables starting with one of ``drop``, with ``LOG_LEVEL=INFO`` and
    unbuffered output, then ``overrides``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update({"LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"})
    env.update(overrides)
    return env


def process_cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process from ``/proc/<pid>/stat``; None where there is no such file."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def readiness(client: httpx.Client, url: str, path: str = "/readyz") -> str | None:
    """None when ``url + path`` answers 200, else why not (an error, or the status and the start of the body)."""
    try:
        response = client.get(url + path)
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if response.status_code == 200:
        return None
    return f"{path} answered {response.status_code}: {response.text[:300]}"


@dataclass
class ServiceProcess:
    """One uvicorn process: ``app`` (``package.module:factory``) on ``port``, its output in ``log_path``."""

    name: str
    app: str
    port: int
    env: dict[str, str]
    log_path: Path
    cwd: Path | None = None
    """The working folder (default: the log's); ``package.module`` of ``app`` is imported from it too."""
    access_log: bool = False
    """uvicorn's access line per request (on in the Docker image; off by default here)."""
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.close_log()
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "uvicorn", "--factory", self.app, "--host", "127.0.0.1"),
                *("--port", str(self.port), *([] if self.access_log else ["--no-access-log"]), *SERVICE_OPTIONS),
            ],
            cwd=self.cwd or self.log_path.parent,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a terminal's Ctrl-C reaches the caller only; it stops the services itself
        )

    def wait_ready(self, path: str = "/readyz", timeout: float = READY_TIMEOUT_S) -> None:
        """Poll ``path`` until it answers 200; raise with the log's tail if the process exits or time runs out."""
        deadline = time.monotonic() + timeout
        last: str | None = "no answer"
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
                last = readiness(client, self.url, path)
                if last is None:
                    return
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout:g} s ({last}):\n{self.log_tail()}")

    def restart(self, path: str = "/readyz") -> None:
        """Start again on the same port (after ``kill``/``stop``) and wait until ``path`` answers 200."""
        self.stop()
        self.start()
        self.wait_ready(path)

    def signal(self, sig: int) -> None:
        if self.alive and self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)

    def kill(self, sig: int = SIGKILL) -> None:
        """Send ``sig`` to the process group and wait for the process to end."""
        self.signal(sig)
        if self.process is not None:
            self.process.wait(timeout=STOP_GRACE_S)

    def wait(self, deadline: float) -> None:
        """Wait for the process to end until ``deadline`` (``time.monotonic``), then SIGKILL it."""
        if self.process is None:
            return
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()

    def stop(self) -> None:
        """SIGTERM, SIGKILL after the grace period; the log is closed."""
        self.signal(SIGTERM)
        self.wait(time.monotonic() + STOP_GRACE_S)
        self.close_log()

    def close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Stack:
    """The running services by name (``coordinator``, ``coordinator-2``..., ``research``, ``debate``, ``judge``)."""

    services: dict[str, ServiceProcess]

    def __getitem__(self, name: str) -> ServiceProcess:
        return self.services[name]

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
        """SIGTERM to every service at once (coordinators first), then wait; SIGKILL what outlives the grace."""
        running = list(reversed(self.services.values()))
        for service in running:
            service.signal(SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for service in running:
            service.wait(deadline)
            service.close_log()


def coordinator_names(count: int) -> list[str]:
    return ["coordinator", *(f"coordinator-{i}" for i in range(2, count + 1))]


@contextlib.contextmanager
def running_stack(
    workdir: Path,
    *,
    common_env: Mapping[str, str] | None = None,
    per_service_env: Mapping[str, Mapping[str, str]] | None = None,
    only: tuple[str, ...] = SERVICES,
    coordinators: int = 1,
    apps: Mapping[str, str] | None = None,
    access_log: bool = False,
    cwd: Path | None = None,
    data_dir: Path | None = None,
    drop: tuple[str, ...] = ISOLATING,
) -> Iterator[Stack]:
    """Start the services named in ``only`` and stop them on the way out.

    Each gets ``base_env(drop=drop, **common_env)`` then its ``per_service_env``; a coordinator also gets the
    peers' URLs and, unless its environment names one, ``DATABASE_URL`` on ``<data_dir or workdir>/<name>.db``.
    ``coordinators`` > 1 starts that many coordinators on the same peers. ``apps`` replaces some services'
    ``uvicorn --factory`` targets (imported from ``cwd``, default ``workdir``). The coordinator of a partial
    stack is waited for on ``/healthz`` (its ``/readyz`` asks the peers)."""
    workdir.mkdir(parents=True, exist_ok=True)
    factories = {**SERVICE_APPS, **(apps or {})}
    names = [name for name in PEERS if name in only]
    names += coordinator_names(coordinators) if "coordinator" in only else []
    ports = {name: free_port() for name in {*SERVICES, *names}}
    peers = {f"{name.upper()}_SERVICE_URL": f"http://127.0.0.1:{ports[name]}" for name in PEERS}
    stack = Stack({})
    try:
        for name in names:
            env = base_env(drop=drop, **dict(common_env or {}))
            if name.startswith("coordinator"):
                env.setdefault("DATABASE_URL", f"sqlite+aiosqlite:///{(data_dir or workdir) / f'{name}.db'}")
                env.update(peers)
            env.update(dict((per_service_env or {}).get(name, {})))
            kind = name.partition("-")[0]
            service = ServiceProcess(
                name,
                factories[kind],
                ports[name],
                env,
                workdir / f"{name}.log",
                cwd=cwd or workdir,
                access_log=access_log,
            )
            stack.services[name] = service
            service.start()
        for service in stack.services.values():
            partial = service.name.startswith("coordinator") and len(only) < len(SERVICES)
            service.wait_ready("/healthz" if partial else "/readyz")
        yield stack
    finally:
        stack.stop()


@contextlib.contextmanager
def running_service(name: str, workdir: Path, **env: str) -> Iterator[ServiceProcess]:
    """One service (``research``, ``debate``, ``judge``) alone on a free port with ``base_env(**env)``,
    ready (``/readyz``) while the block runs; its log is ``workdir / f"{name}.log"``."""
    service = ServiceProcess(name, SERVICE_APPS[name], free_port(), {**base_env(), **env}, workdir / f"{name}.log")
    service.start()
    try:
        service.wait_ready()
        yield service
    finally:
        service.stop()
