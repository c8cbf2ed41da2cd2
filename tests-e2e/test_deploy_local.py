"""`make run` / `make research` on a bare machine: the Procfile, scripts/run_local.py (honcho + readiness +
clean stop on Ctrl-C, with real processes on loopback) and scripts/research_cli.py (summary of a research)."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import respx
from deploy_manifests import ROOT, SERVICE_PORTS, SERVICES

RUN_LOCAL = ROOT / "scripts" / "run_local.py"
RESEARCH_CLI = ROOT / "scripts" / "research_cli.py"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"deploy_script_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------ Procfile, make


def test_procfile_starts_each_service_with_its_factory_and_port() -> None:
    run_local = _load(RUN_LOCAL)
    services = run_local.read_procfile(ROOT / "Procfile")
    assert {s.name: s.port for s in services} == SERVICE_PORTS
    assert {s.host for s in services} == {"127.0.0.1"}
    text = (ROOT / "Procfile").read_text(encoding="utf-8")
    for service in SERVICES:
        line = next(line for line in text.splitlines() if line.startswith(f"{service}:"))
        assert f"exec uvicorn --factory {service}.main:create_app " in line


def test_procfile_is_valid_for_honcho() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "honcho", "-f", str(ROOT / "Procfile"), "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "coordinator, research, debate, judge" in out.stderr + out.stdout


def test_make_targets_call_the_scripts() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: bootstrap\n\t\$\(RUN\) python scripts/run_local\.py$", makefile, re.M)
    assert re.search(r"^research: .*\n\t\$\(RUN\) python scripts/research_cli\.py \$\(SYMBOL\)", makefile, re.M)


# ----------------------------------------------------------------------- run_local with real processes

FAKE_APP = """
import os
from contextlib import asynccontextmanager
from fastapi import FastAPI
from fastapi.responses import JSONResponse

def create_app():
    @asynccontextmanager
    async def lifespan(app):
        yield
        print("clean shutdown", flush=True)

    app = FastAPI(lifespan=lifespan)

    @app.get("/readyz")
    async def readyz():
        ready = os.environ.get("FAKE_READY", "1") == "1"
        return JSONResponse({"status": "ready" if ready else "not_ready"}, status_code=200 if ready else 503)

    return app
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _procfile(tmp_path: Path, lines: dict[str, str]) -> Path:
    (tmp_path / "fakeapp.py").write_text(FAKE_APP, encoding="utf-8")
    path = tmp_path / "Procfile"
    path.write_text("".join(f"{name}: {command}\n" for name, command in lines.items()), encoding="utf-8")
    return path


def _uvicorn(tmp_path: Path, port: int, env: str = "") -> str:
    return f"{env} PYTHONPATH={tmp_path} exec uvicorn --factory fakeapp:create_app --host 127.0.0.1 --port {port}"


def _start(procfile: Path, timeout: float = 30) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(RUN_LOCAL), "--procfile", str(procfile), "--timeout", str(timeout)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # like a terminal's foreground job: the signal goes to the script
    )


def _read_until(proc: subprocess.Popen[str], marker: str, seconds: float = 60) -> str:
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    proc.kill()
    raise AssertionError(f"{marker!r} never appeared:\n{''.join(seen)}")


def _pids(output: str) -> list[int]:
    return [int(pid) for pid in re.findall(r"started \(pid=(\d+)\)", output)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.e2e
def test_run_local_waits_for_readiness_prints_urls_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    ports = {"coordinator": _free_port(), "research": _free_port()}
    procfile = _procfile(tmp_path, {name: _uvicorn(tmp_path, port) for name, port in ports.items()})
    proc = _start(procfile)
    output = _read_until(proc, "Ctrl-C stops everything.")
    assert f"coordinator  http://127.0.0.1:{ports['coordinator']}" in output
    assert f"curl -s -X POST http://127.0.0.1:{ports['coordinator']}/api/v1/coordinator/research" in output
    assert all(_listening(port) for port in ports.values())
    pids = _pids(output)
    assert len(pids) == 2

    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, rest
    assert rest.count("clean shutdown") == 2, rest  # each app's lifespan ran its cleanup
    assert "stopped (honcho exit code" in rest
    assert not any(_alive(pid) for pid in pids)
    assert not any(_listening(port) for port in ports.values())


@pytest.mark.e2e
def test_run_local_names_the_service_that_does_not_become_ready(tmp_path: Path) -> None:
    ports = {"coordinator": _free_port(), "research": _free_port()}
    procfile = _procfile(
        tmp_path,
        {
            "coordinator": _uvicorn(tmp_path, ports["coordinator"]),
            "research": _uvicorn(tmp_path, ports["research"], env="FAKE_READY=0"),
        },
    )
    proc = _start(procfile, timeout=5)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "NOT READY: research did not become ready within 5s (/readyz answered 503" in output
    assert not any(_alive(pid) for pid in _pids(output))


@pytest.mark.e2e
def test_run_local_reports_a_service_that_crashes_at_start(tmp_path: Path) -> None:
    port = _free_port()
    procfile = _procfile(
        tmp_path,
        {
            "coordinator": _uvicorn(tmp_path, _free_port()),
            "judge": f"exec {sys.executable} -c 'raise SystemExit(3)' --port {port}",
        },
    )
    proc = _start(procfile)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert re.search(r"NOT READY: honcho exited \(code \d+\) before .*judge", output)
    assert not any(_alive(pid) for pid in _pids(output))


def test_run_local_refuses_ports_already_in_use(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        procfile = _procfile(tmp_path, {"coordinator": _uvicorn(tmp_path, port)})
        proc = _start(procfile)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert f"port already in use for: coordinator (127.0.0.1:{port})" in output


# ------------------------------------------------------------------------------------- research CLI

RESPONSE: dict[str, Any] = {
    "session_id": "5b0c6f0e-1",
    "symbol": "600519.SH",
    "overall_status": "partial",
    "retry_count": 0,
    "expert_results": {
        "technical_analyst": {
            "status": "success",
            "data": {
                "signal": "BULLISH",
                "confidence": 0.72,
                "summary_reasoning": "Price above the 60-day average; MACD crossed up.",
                "risk_warning": "Overbought RSI",
                "engine": {"kind": "rules", "model": None, "fallback_reason": None},
            },
        },
        "valuation_modeler": {
            "status": "success",
            "data": {
                "valuation_verdict": "UNDERVALUED",
                "confidence_score": 0.6,
                "reasoning_summary": "PE below its 5-year median.",
                "risk_factors": ["Margin pressure"],
            },
        },
        "catalyst_detective": {"status": "failed", "error": "news source timed out (504)"},
    },
    "debate_outcome": {
        "symbol": "600519.SH",
        "direction": "BULLISH",
        "confidence": 0.66,
        "conflict_resolution": "Valuation support outweighs the momentum risk.",
        "engine": {"kind": "rules"},
    },
    "verdict": {
        "symbol": "600519.SH",
        "action": "BUY",
        "position_percent": 15.0,
        "confidence": 0.61,
        "entry_strategy": "Scale in over two weeks.",
        "stop_loss": {"percent_from_entry": -8.0, "price": 1380.5, "basis": "below support"},
        "take_profit": {"percent_from_entry": 15.0, "price": None, "basis": "prior high"},
        "time_horizon": "MEDIUM_TERM",
        "risk_warnings": ["Consumption slowdown"],
        "reasoning": "Moderately bullish consensus.",
        "engine": {"kind": "rules"},
    },
}


def test_summary_shows_experts_debate_and_verdict() -> None:
    cli = _load(RESEARCH_CLI)
    text = cli.format_summary(RESPONSE)
    assert "Research 600519.SH: PARTIAL   session 5b0c6f0e-1" in text
    assert re.search(r"ok\s+technical_analyst\s+BULLISH\s+confidence 0\.72\s+\[engine: rules\]", text)
    assert re.search(r"ok\s+valuation_modeler\s+UNDERVALUED\s+confidence 0\.60", text)
    assert re.search(r"FAILED\s+catalyst_detective\s+news source timed out \(504\)", text)
    long_reason = "research 404 symbol_not_found: no data for XYZ; it has " + ", ".join(
        f"{i:06d}.SZ" for i in range(20)
    )
    failed = cli.format_summary(
        {**RESPONSE, "expert_results": {"technical_analyst": {"status": "failed", "error": long_reason}}}
    )
    assert "000019.SZ" in " ".join(failed.split())  # the whole reason, not cut before the list
    assert "Debate   BULLISH  confidence 0.66" in text
    assert "Verdict  BUY  position 15.0%  confidence 0.61  horizon MEDIUM_TERM" in text
    assert "stop loss    -8.0% (at 1380.50)" in text
    assert "take profit  +15.0%" in text


@respx.mock
def test_cli_posts_the_research_and_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    route = respx.post("http://coord.test/api/v1/coordinator/research").mock(
        return_value=httpx.Response(200, json=RESPONSE, headers={"X-Request-ID": "rid-1"})
    )
    cli = _load(RESEARCH_CLI)
    code = cli.main(["600519.SH", "--url", "http://coord.test", "--experts", "technical_analyst,valuation_modeler"])
    assert code == 0
    assert route.calls.last.request.content == (
        b'{"symbol":"600519.SH","experts":["technical_analyst","valuation_modeler"],"skip_debate":false}'
    )
    assert (
        cli.main(["600519.SH", "--url", "http://coord.test", "--experts", "technical_analyst  valuation_modeler"]) == 0
    )
    assert route.calls.last.request.content == (
        b'{"symbol":"600519.SH","experts":["technical_analyst","valuation_modeler"],"skip_debate":false}'
    )
    out = capsys.readouterr()
    assert "Verdict  BUY" in out.out
    assert "X-Request-ID rid-1" in out.err


@respx.mock
def test_cli_prints_the_problem_when_refused(capsys: pytest.CaptureFixture[str]) -> None:
    problem = {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": "unknown expert x",
        "code": "unknown_expert",
    }
    respx.post("http://coord.test/api/v1/coordinator/research").mock(return_value=httpx.Response(400, json=problem))
    cli = _load(RESEARCH_CLI)
    assert cli.main(["600519.SH", "--url", "http://coord.test", "--experts", "x"]) == 1
    assert "Refused: 400 Bad Request [unknown_expert]: unknown expert x" in capsys.readouterr().err


def test_cli_says_how_to_start_the_stack_when_nothing_listens(capsys: pytest.CaptureFixture[str]) -> None:
    cli = _load(RESEARCH_CLI)
    assert cli.main(["600519.SH", "--url", f"http://127.0.0.1:{_free_port()}"]) == 2
    assert "make run" in capsys.readouterr().err


@respx.mock
def test_cli_says_why_the_debate_and_the_verdict_are_missing(capsys: pytest.CaptureFixture[str]) -> None:
    session_id = RESPONSE["session_id"]
    respx.post(f"http://coord.test/api/v1/coordinator/research/{session_id}/retry").mock(
        return_value=httpx.Response(200, json={**RESPONSE, "debate_outcome": None, "verdict": None, "retry_count": 1})
    )
    detail = respx.get(f"http://coord.test/api/v1/coordinator/sessions/{session_id}").mock(
        return_value=httpx.Response(
            200,
            json={
                "debate": {"status": "failed", "error": "debate 503 llm_unavailable: the LLM answered 503"},
                "judge": {"status": "skipped", "error": None},
            },
        )
    )
    cli = _load(RESEARCH_CLI)
    assert cli.main(["--retry", session_id, "--url", "http://coord.test"]) == 0
    out = capsys.readouterr().out
    assert detail.called
    assert "Debate   (failed: debate 503 llm_unavailable: the LLM answered 503)" in out
    assert "Verdict  (skipped)" in out


@respx.mock
def test_cli_lists_sessions_with_the_filters_given(capsys: pytest.CaptureFixture[str]) -> None:
    page = {
        "items": [
            {
                "session_id": "5b0c6f0e-1",
                "symbol": "600519.SH",
                "status": "partial",
                "retry_count": 1,
                "retried_from": "0a1b",
                "stages_to_retry": ["macro_intelligence", "debate", "judge"],
                "created_at": "2026-11-21T14:00:00.123456Z",
            }
        ],
        "total": 7,
        "limit": 1,
        "offset": 0,
    }
    route = respx.get("http://coord.test/api/v1/coordinator/sessions").mock(return_value=httpx.Response(200, json=page))
    cli = _load(RESEARCH_CLI)
    assert (
        cli.main(["--sessions", "600519.SH", "--status", "partial", "--limit", "1", "--url", "http://coord.test"]) == 0
    )
    assert dict(route.calls.last.request.url.params) == {"limit": "1", "symbol": "600519.SH", "status": "partial"}
    out = capsys.readouterr().out
    assert "1 of 7 sessions, newest first" in out
    assert re.search(
        r"2026-11-21T14:00:00  5b0c6f0e-1  600519.SH\s+partial\s+retries 1  retry of 0a1b"
        r"  to retry: macro_intelligence, debate, judge",
        out,
    )


def test_cli_without_a_symbol_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    cli = _load(RESEARCH_CLI)
    with pytest.raises(SystemExit) as exited:
        cli.main([])
    assert exited.value.code == 2
    assert "a symbol, --retry SESSION_ID or --sessions is required" in capsys.readouterr().err


# A variable every service reads (shared_contracts.service.settings), set to what none accepts.
@pytest.mark.parametrize("service", SERVICES)
def test_a_service_started_with_a_bad_variable_exits_with_one_line_naming_it(service: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"LOG_LEVEL": "LOUD"}
    started = subprocess.run(
        [sys.executable, "-m", "uvicorn", "--factory", f"{service}.main:create_app", "--port", "0"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 1
    assert "Invalid configuration: LOG_LEVEL" in started.stderr
    assert "Traceback" not in started.stderr, started.stderr


def test_a_service_stopped_by_sigterm_writes_its_last_log_lines() -> None:
    """uvicorn ends a signalled server by raising the signal again once the app has shut down: no exit hook
    runs, so lines still queued for the log writer were lost ("Application shutdown complete" never showed)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"LOG_LEVEL": "INFO"}
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "judge.main:create_app", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    assert "Application shutdown complete" in stderr, stderr[-2000:]
    assert "Finished server process" in stderr, stderr[-2000:]
