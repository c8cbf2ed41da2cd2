"""Run the four services on this machine: honcho supervises the Procfile, this script waits for readiness.

``make run`` calls it. It starts ``honcho start`` on the root ``Procfile`` (every service through ``python -m
service_kit.serve``: the launcher's apps and server options, on fixed ports; tests-e2e/test_deploy_server.py keeps
the two alike), polls every service's ``/readyz`` (the launcher's readiness check) until all answer 200 (or names the
ones that did not come up in time), prints the URLs and a ready-to-paste curl (as of the last trading day the data
has for its symbol), and on Ctrl-C (SIGINT) or SIGTERM asks honcho to stop, which stops every service cleanly.

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
from urllib.parse import urlsplit

import httpx

from service_kit.stack.analysis_day import default_analysis_date, last_weekday
from service_kit.stack.launcher import readiness
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
                    reason = readiness(client, service.url)
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


def settings() -> dict[str, str]:
    """The variables the services will read: this environment's, then ``.env``'s (honcho loads it; the shell wins)."""
    found = {k: v for k, v in os.environ.items() if v}
    dotenv = ROOT / ".env"
    if dotenv.is_file():
        for line in dotenv.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            value = value.strip().strip("'\"")
            if value and not key.lstrip().startswith("#"):
                found.setdefault(key.strip().removeprefix("export "), value)
    return found


def engines(given: dict[str, str] | None = None) -> str:
    """Which engines the analysing services will pick (ANALYSIS_ENGINE=auto: LLM when an endpoint or key is set)."""
    given = settings() if given is None else given
    if given.get("ANALYSIS_ENGINE", "auto").strip("'\" ") != "auto":
        return f"ANALYSIS_ENGINE={given['ANALYSIS_ENGINE']}"
    if set(given) & {"LLM_BASE_URL", "LLM_API_KEY"}:
        return "LLM engine configured by LLM_* variables"
    return "rules engines: no LLM_BASE_URL / LLM_API_KEY set"


LOCAL_DATABASE_URL = "sqlite+aiosqlite:///./data/coordinator.db"
"""The Procfile's DATABASE_URL when none is set."""


def session_store(given: dict[str, str] | None = None) -> str:
    """Where the coordinator keeps the sessions (its DATABASE_URL, as the Procfile passes it), without a password."""
    url = (settings() if given is None else given).get("DATABASE_URL") or LOCAL_DATABASE_URL
    parts = urlsplit(url)
    kind = parts.scheme.split("+", 1)[0]
    if kind == "sqlite":
        path = url.split(":///", 1)[1] if ":///" in url else ""
        return f"SQLite {(ROOT / path).resolve() if path and path != ':memory:' else 'in memory'}"
    name = {"postgresql": "PostgreSQL", "postgres": "PostgreSQL"}.get(kind, kind)
    where = parts.hostname or "localhost"
    return f"{name} {where}{f':{parts.port}' if parts.port else ''}{parts.path or ''}"


EXAMPLE_SYMBOL = "600519.SH"


def banner(
    services: list[Service], given: dict[str, str] | None = None, analysis: tuple[str, str] | None = None
) -> str:
    """What is running and how to use it: the URLs, the engines, the session store, a curl to paste (with the
    Bearer header the services need under AUTH_MODE=api_key) researching as of ``analysis`` (a day and why it was
    chosen: the last trading day the data has) when given."""
    given = settings() if given is None else given
    by_name = {s.name: s for s in services}
    coordinator = by_name.get("coordinator", services[0])
    request = {"symbol": EXAMPLE_SYMBOL, "experts": [e.value for e in ExpertType]}
    payload = shlex.quote(json.dumps(request | ({"analysis_date": analysis[0]} if analysis else {})))
    with_keys = given.get("AUTH_MODE", "none").strip().lower() == "api_key"
    lines = ["", f"All {len(services)} services are ready ({engines(given)}; sessions in {session_store(given)}).", ""]
    lines += [f"  {s.name:<12} {s.url:<24} docs {s.url}/docs   health {s.url}/readyz" for s in services]
    lines += [
        "",
        f"Console: {coordinator.url}/console/   (new research, live progress, sessions, history, scorecard)",
        "",
    ]
    if with_keys:
        lines += [
            'AUTH_MODE=api_key: every /api/ request needs a key of API_KEYS (make keys ARGS="create alice").',
            "  export STOCK_RESEARCH_API_KEY=<your key>      # make research and the CLI send it too",
            "",
        ]
    lines += [
        "Try:" + (f" (as of {analysis[0]}, {analysis[1]})" if analysis else ""),
        f"  curl -s -X POST {coordinator.url}/api/v1/coordinator/research \\",
        *(['       -H "Authorization: Bearer $STOCK_RESEARCH_API_KEY" \\'] if with_keys else []),
        f"       -H 'Content-Type: application/json' -d {payload}",
        f"  make research SYMBOL={EXAMPLE_SYMBOL}        # the same, summarised",
        "",
        "Ctrl-C stops everything.",
        "",
    ]
    return "\n".join(lines)


def example_day(services: list[Service]) -> tuple[str, str]:
    """The day the banner's curl researches as of: the last trading day the data has for the example symbol
    (asked of the coordinator, with STOCK_RESEARCH_API_KEY when set), else the last weekday up to today."""
    coordinator = next((s for s in services if s.name == "coordinator"), services[0])
    key = os.environ.get("STOCK_RESEARCH_API_KEY", "").strip()
    try:
        with httpx.Client(timeout=5.0, headers={"Authorization": f"Bearer {key}"} if key else {}) as client:
            return default_analysis_date(client, coordinator.url, [EXAMPLE_SYMBOL])
    except httpx.HTTPError as exc:
        return last_weekday(), f"the last weekday up to today (the universe could not be read: {type(exc).__name__})"


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
        print(banner(services, analysis=example_day(services)), flush=True)
        return honcho.wait()
    except Interrupted as exc:
        print(f"\nrun_local | {exc}: stopping the services ...", flush=True)
        code = stop(honcho)
        print(f"run_local | stopped (honcho exit code {code})", flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main())
