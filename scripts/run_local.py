"""Run the four services on this machine: honcho supervises the Procfile, this script waits for readiness.

``make run`` calls it. It starts ``honcho start`` on the root ``Procfile``, polls every service's ``/readyz``
until all answer 200 (or names the ones that did not come up in time), prints the URLs and a ready-to-paste
curl, and on Ctrl-C (SIGINT) or SIGTERM asks honcho to stop, which stops every service cleanly.

    uv run python scripts/run_local.py [--timeout SECONDS] [--procfile PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from shared_contracts.experts import ExpertType

ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT_S = float(os.environ.get("RUN_READY_TIMEOUT", "120"))
STOP_TIMEOUT_S = 20.0  # honcho gives its children 5 s after SIGTERM, then SIGKILLs them


@dataclass(frozen=True)
class Service:
    name: str
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


class Interrupted(Exception):
    """Ctrl-C or SIGTERM while running."""


def read_procfile(path: Path) -> list[Service]:
    """The services of a Procfile: each line ``name: ... --port N [--host H]``."""
    services = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)
        if not match:
            continue
        port = re.search(r"--port[ =](\d+)", match.group(2))
        host = re.search(r"--host[ =]([^\s]+)", match.group(2))
        if port is None:
            raise SystemExit(f"{path}: process {match.group(1)!r} has no --port")
        services.append(Service(match.group(1), host.group(1) if host else "127.0.0.1", int(port.group(1))))
    if not services:
        raise SystemExit(f"{path}: no processes")
    return services


def port_in_use(service: Service) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((service.host, service.port)) == 0


def readiness(client: httpx.Client, service: Service) -> str | None:
    """None when /readyz answers 200, else why not (for the timeout message)."""
    try:
        response = client.get(f"{service.url}/readyz")
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if response.status_code == 200:
        return None
    return f"/readyz answered {response.status_code}: {response.text[:300]}"


def wait_until_ready(honcho: subprocess.Popen[bytes], services: list[Service], timeout: float) -> list[str]:
    """Poll until every service is ready; return the problems (empty = all ready)."""
    pending = {s.name: "not polled yet" for s in services}
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0) as client:
        while pending:
            if honcho.poll() is not None:
                names = ", ".join(pending)
                return [f"honcho exited (code {honcho.returncode}) before {names} became ready; see the log above"]
            for service in services:
                if service.name in pending:
                    reason = readiness(client, service)
                    if reason is None:
                        del pending[service.name]
                        print(f"run_local | {service.name} is ready at {service.url}", flush=True)
                    else:
                        pending[service.name] = reason
            if pending and time.monotonic() > deadline:
                return [f"{name} did not become ready within {timeout:.0f}s ({why})" for name, why in pending.items()]
            if pending:
                time.sleep(0.5)
    return []


def engines() -> str:
    """Which engines the analysing services will pick (ANALYSIS_ENGINE=auto: LLM when an endpoint or key is set)."""
    settings = {k: v for k, v in os.environ.items() if v}
    dotenv = ROOT / ".env"
    if dotenv.is_file():
        for line in dotenv.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if value.strip().strip("'\""):
                settings.setdefault(key.strip().removeprefix("export "), value)
    keys = set(settings)
    if settings.get("ANALYSIS_ENGINE", "auto").strip("'\" ") != "auto":
        return f"ANALYSIS_ENGINE={settings['ANALYSIS_ENGINE']}"
    if keys & {"LLM_BASE_URL", "LLM_API_KEY"}:
        return "LLM engine configured by LLM_* variables"
    return "rules engines: no LLM_BASE_URL / LLM_API_KEY set"


def banner(services: list[Service]) -> str:
    by_name = {s.name: s for s in services}
    coordinator = by_name.get("coordinator", services[0])
    payload = shlex.quote(json.dumps({"symbol": "600519.SH", "experts": [e.value for e in ExpertType]}))
    lines = ["", f"All {len(services)} services are ready ({engines()}; sessions in {ROOT / 'data'}).", ""]
    lines += [f"  {s.name:<12} {s.url:<24} docs {s.url}/docs   health {s.url}/readyz" for s in services]
    lines += [
        "",
        f"Console: {coordinator.url}/console/   (new research, live progress, sessions, history, scorecard)",
        "",
        "Try:",
        f"  curl -s -X POST {coordinator.url}/api/v1/coordinator/research \\",
        f"       -H 'Content-Type: application/json' -d {payload}",
        "  make research SYMBOL=600519.SH        # the same, summarised",
        "",
        "Ctrl-C stops everything.",
        "",
    ]
    return "\n".join(lines)


def stop(honcho: subprocess.Popen[bytes]) -> int:
    """Ask honcho to stop (it SIGTERMs every service, SIGKILLs after 5 s); wait for it."""
    if honcho.poll() is None:
        honcho.send_signal(signal.SIGINT)
        try:
            honcho.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print("run_local | honcho did not stop in time; killing it", file=sys.stderr, flush=True)
            honcho.kill()
            honcho.wait()
    return honcho.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--procfile", type=Path, default=ROOT / "Procfile")
    parser.add_argument("--timeout", type=float, default=READY_TIMEOUT_S, help="seconds to wait for /readyz")
    args = parser.parse_args(argv)

    services = read_procfile(args.procfile)
    busy = [f"{s.name} ({s.host}:{s.port})" for s in services if port_in_use(s)]
    if busy:
        print(f"run_local | port already in use for: {', '.join(busy)}. Is the stack already running?", file=sys.stderr)
        return 1
    (ROOT / "data").mkdir(exist_ok=True)

    def interrupt(signum: int, _frame: object) -> None:
        # A terminal's Ctrl-C may arrive twice (directly and forwarded by `uv run`/make): act on the first only,
        # so that a second one can never abandon the children.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Interrupted(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)

    env = dict(os.environ)
    # uvicorn and honcho live next to this interpreter; make them findable however the script was started.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("LOG_JSON", "false")  # readable console logs locally; the containers keep JSON
    command = [sys.executable, "-m", "honcho", "--no-colour", "-f", str(args.procfile), "-d", str(ROOT), "start"]
    # Own session: a terminal Ctrl-C reaches this script only, and the script hands it to honcho once.
    honcho = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    try:
        problems = wait_until_ready(honcho, services, args.timeout)
        if problems:
            for problem in problems:
                print(f"run_local | NOT READY: {problem}", file=sys.stderr, flush=True)
            stop(honcho)
            return 1
        print(banner(services), flush=True)
        return honcho.wait()
    except Interrupted as exc:
        print(f"\nrun_local | {exc}: stopping the services ...", flush=True)
        code = stop(honcho)
        print(f"run_local | stopped (honcho exit code {code})", flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main())
