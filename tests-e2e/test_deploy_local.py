"""`make run` / `make research` on a bare machine: the Procfile, scripts/run_local.py (honcho + readiness +
clean stop on Ctrl-C, with real processes on loopback) and scripts/research_cli.py (summary of a research)."""

from __future__ import annotations

import json
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
from e2e_support import load_script

from shared_contracts.experts import ExpertType
from shared_contracts.research import Universe

RUN_LOCAL = ROOT / "scripts" / "run_local.py"
RESEARCH_CLI = ROOT / "scripts" / "research_cli.py"


def _load(path: Path) -> ModuleType:
    return load_script(path, f"deploy_script_{path.stem}")


# ------------------------------------------------------------------------------------ Procfile, make


def test_procfile_starts_each_service_with_its_factory_and_port() -> None:
    run_local = _load(RUN_LOCAL)
    services = run_local.read_procfile(ROOT / "Procfile")
    assert {s.name: s.port for s in services} == SERVICE_PORTS
    assert {s.host for s in services} == {"127.0.0.1"}
    text = (ROOT / "Procfile").read_text(encoding="utf-8")
    for service in SERVICES:
        line = next(line for line in text.splitlines() if line.startswith(f"{service}:"))
        assert f"exec python -m service_kit.serve {service} " in line


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
    assert re.search(
        r"^research: .*\n\t\$\(CLI_FAILURE\)\$\(RUN\) python scripts/research_cli\.py \$\(SYMBOL\)", makefile, re.M
    )
    research = re.search(r"^research: .*\n\t(.*)$", makefile, re.M)
    assert research is not None
    assert '$(if $(DATE),--analysis-date "$(DATE)")' in research.group(1)


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


def test_the_banner_names_the_session_store_the_coordinator_uses() -> None:
    run_local = _load(RUN_LOCAL)
    services = run_local.read_procfile(ROOT / "Procfile")
    local = run_local.banner(services, {})
    assert f"sessions in SQLite {ROOT / 'data' / 'coordinator.db'})." in local
    postgres = {"DATABASE_URL": "postgresql+asyncpg://stock:s3cret@db.internal:5433/stock_research"}
    text = run_local.banner(services, postgres)
    assert "sessions in PostgreSQL db.internal:5433/stock_research)." in text
    assert "s3cret" not in text
    assert "sessions in SQLite /tmp/x.db" in run_local.banner(
        services, {"DATABASE_URL": "sqlite+aiosqlite:////tmp/x.db"}
    )


def test_the_banner_of_a_stack_with_api_keys_prints_a_curl_with_the_bearer_header(tmp_path: Path) -> None:
    run_local = _load(RUN_LOCAL)
    services = run_local.read_procfile(ROOT / "Procfile")
    assert "Authorization" not in run_local.banner(services, {})  # AUTH_MODE=none: every caller is trusted
    text = run_local.banner(services, {"AUTH_MODE": "api_key"})
    assert "export STOCK_RESEARCH_API_KEY=<your key>" in text
    curl = text[text.index("  curl ") : text.index("  make research")]
    assert '-H "Authorization: Bearer $STOCK_RESEARCH_API_KEY"' in curl
    # The lines pasted into a shell are one command: bash runs it (curl replaced by a script printing its args).
    fake = tmp_path / "curl"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "STOCK_RESEARCH_API_KEY": "sr_k"}
    args = subprocess.run(["bash", "-c", curl], env=env, capture_output=True, text=True, check=True).stdout
    assert "Authorization: Bearer sr_k\n" in args
    assert json.loads(args.splitlines()[-1])["symbol"] == "600519.SH"


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
    assert "  action         BUY, medium term" in text
    assert "  position       15.0 % of the portfolio" in text
    assert "  confidence     61 %\n" in text  # no standing (score): not claimed to be a calibrated probability
    assert "  stop loss      1380.50, \u22128.0 % from entry: below support" in text
    assert "  take profit    +15.0 % from entry: prior high" in text


def test_summary_lists_the_unverified_figures_of_an_llm_research() -> None:
    cli = _load(RESEARCH_CLI)
    assert "Numbers" not in cli.format_summary(RESPONSE)  # rules: no numbers check
    figure = {"field": "judge.reasoning", "text": "42.42%", "value": 42.42}
    judge = {"checked": 3, "traced": 2, "unverified": [figure | {"field": "reasoning"}], "repaired": True}
    total = {"checked": 9, "traced": 8, "unverified": [figure], "repaired": True}
    rollup = {"total": total, "stages": {"judge": judge}}
    text = cli.format_summary({**RESPONSE, "numbers_check": rollup})
    assert "Numbers  8/9 figures traced to the data, 1 unverified (repaired: judge)" in text
    assert "  ? judge.reasoning: 42.42%" in text


@respx.mock
def test_cli_posts_the_research_and_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    respx.get("http://coord.test/api/v1/coordinator/universe").mock(return_value=httpx.Response(200, json=UNIVERSE))
    route = respx.post("http://coord.test/api/v1/coordinator/research").mock(
        return_value=httpx.Response(200, json=RESPONSE, headers={"X-Request-ID": "rid-1"})
    )
    cli = _load(RESEARCH_CLI)
    code = cli.main(["600519.SH", "--url", "http://coord.test", "--experts", "technical_analyst,valuation_modeler"])
    assert code == 0
    sent = (
        b'{"symbol":"600519.SH","experts":["technical_analyst","valuation_modeler"],"skip_debate":false,'
        b'"analysis_date":"2025-09-30","language":"zh"}'
    )  # the last trading day the data has for the symbol (UNIVERSE)
    assert route.calls.last.request.content == sent
    assert (
        cli.main(["600519.SH", "--url", "http://coord.test", "--experts", "technical_analyst  valuation_modeler"]) == 0
    )
    assert route.calls.last.request.content == sent
    out = capsys.readouterr()
    assert "  action         BUY" in out.out
    assert "X-Request-ID rid-1" in out.err


@respx.mock
def test_cli_prints_the_problem_when_refused(capsys: pytest.CaptureFixture[str]) -> None:
    respx.get("http://coord.test/api/v1/coordinator/universe").mock(return_value=httpx.Response(200, json=UNIVERSE))
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
                "analysis_date": "2025-09-30",
                "action": "HOLD",
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
        r"2026-11-21 14:00\s+5b0c6f0e-1\s+600519.SH\s+2025-09-30\s+partial\s+HOLD\s+retries 1  retry of 0a1b"
        r"  to retry: macro_intelligence, debate, judge",
        out,
    )


def test_cli_without_a_symbol_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    cli = _load(RESEARCH_CLI)
    with pytest.raises(SystemExit) as exited:
        cli.main([])
    assert exited.value.code == 2
    assert "a symbol, --retry SESSION_ID, --sessions or --universe is required" in capsys.readouterr().err


# --------------------------------------------------------------- research CLI: point in time, universe

STALE_BAR = "the latest bar is 2025-09-30, 421 days before the analysis date 2026-11-25"


def _point_in_time(analysis_date: str | None = "2026-11-25") -> dict[str, Any]:
    """RESPONSE as the coordinator answers a dated research: every expert result dated, one of them stale."""
    technical = RESPONSE["expert_results"]["technical_analyst"]
    valuation = RESPONSE["expert_results"]["valuation_modeler"]
    dated = {"analysis_date": "2026-11-25", "as_of": "2025-09-30"}
    return {
        **RESPONSE,
        **({"analysis_date": analysis_date} if analysis_date else {}),
        "expert_results": {
            "technical_analyst": {
                **technical,
                "data": {
                    **technical["data"],
                    **dated,
                    "inputs_as_of": {"bars": {"last": "2025-09-30"}},
                    "staleness": [STALE_BAR],
                },
            },
            "valuation_modeler": {
                **valuation,
                "data": {
                    **valuation["data"],
                    **dated,
                    "as_of": "2025-09-26",
                    "inputs_as_of": {
                        "financials": {"period_end": "2024-12-31", "available_from": "2025-04-30"},
                        "valuation": {"snapshot": "2025-09-26"},
                    },
                    "staleness": [],
                },
            },
            "catalyst_detective": RESPONSE["expert_results"]["catalyst_detective"],
        },
    }


def test_summary_first_shows_the_analysis_date_the_stale_experts_and_each_as_of() -> None:
    cli = _load(RESEARCH_CLI)
    lines = cli.format_summary(_point_in_time()).splitlines()
    assert lines[1] == "Analysis date 2026-11-25"
    stale = " ".join(" ".join(lines[2 : lines.index("Experts")]).split())  # wrapped at the screen width
    assert stale == f"⚠ stale: technical_analyst: {STALE_BAR}"  # one per stale expert, none for the fresh
    text = "\n".join(lines)
    assert re.search(
        r"ok\s+technical_analyst\s+BULLISH\s+confidence 0\.72\s+as of 2025-09-30\s+\[engine: rules\]", text
    )
    assert re.search(r"ok\s+valuation_modeler\s+UNDERVALUED\s+confidence 0\.60\s+as of 2025-09-26", text)
    assert "inputs: bars last=2025-09-30" in text
    assert "inputs: financials period_end=2024-12-31, available_from=2025-04-30; valuation snapshot=2025-09-26" in (
        " ".join(text.split())
    )


def test_summary_without_an_analysis_date_takes_the_experts_one_and_shows_no_staleness() -> None:
    cli = _load(RESEARCH_CLI)
    response = _point_in_time(analysis_date=None)
    response["expert_results"]["technical_analyst"]["data"]["staleness"] = []
    text = cli.format_summary(response)
    assert text.splitlines()[1] == "Analysis date 2026-11-25"
    assert "stale" not in text
    assert cli.format_summary(RESPONSE).splitlines()[1] == "Analysis date (not reported)"  # a session from before


@respx.mock
def test_cli_sends_the_analysis_date_checked_before_anything_is_sent(capsys: pytest.CaptureFixture[str]) -> None:
    route = respx.post("http://coord.test/api/v1/coordinator/research").mock(
        return_value=httpx.Response(200, json=_point_in_time())
    )
    cli = _load(RESEARCH_CLI)
    code = cli.main(["600519.SH", "--url", "http://coord.test", "--analysis-date", "2026-11-25", "--skip-debate"])
    assert code == 0
    assert json.loads(route.calls.last.request.content) == {
        "symbol": "600519.SH",
        "experts": [e.value for e in ExpertType],
        "skip_debate": True,
        "analysis_date": "2026-11-25",
        "language": "zh",
    }
    assert f"⚠ stale: technical_analyst: {STALE_BAR}" in " ".join(capsys.readouterr().out.split())
    for bad in ("2025-02-30", "20250930", "2025-9-30", "yesterday"):
        with pytest.raises(SystemExit) as exited:
            cli.main(["600519.SH", "--url", "http://coord.test", "--analysis-date", bad])
        assert exited.value.code == 2
        assert f"argument --analysis-date: expected a real day as YYYY-MM-DD, got {bad!r}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        cli.main(["--sessions", "--url", "http://coord.test", "--analysis-date", "2025-09-30"])
    assert exited.value.code == 2
    assert "--analysis-date dates a new research" in capsys.readouterr().err
    assert route.call_count == 1


def _refused(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """A problem detail merged with the full research response, as the coordinator refuses a research."""
    error = f"research {status} {code}: {detail}"
    return {
        **RESPONSE,
        "analysis_date": "2010-01-04",
        "overall_status": "failed",
        "debate_outcome": None,
        "verdict": None,
        "expert_results": {
            "technical_analyst": {"status": "failed", "error": error},
            "valuation_modeler": {"status": "failed", "error": error},
        },
        "type": "about:blank",
        "title": "Not Found" if status == 404 else "Unprocessable Content",
        "status": status,
        "detail": f"no expert could analyse 600519.SH as of 2010-01-04: {detail}",
        "code": code,
        **extra,
    }


@respx.mock
def test_cli_prints_a_symbol_without_data_as_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    body = _refused(404, "symbol_not_found", "no data for XYZ.SH")
    respx.post("http://coord.test/api/v1/coordinator/research").mock(return_value=httpx.Response(404, json=body))
    cli = _load(RESEARCH_CLI)
    assert cli.main(["XYZ.SH", "--url", "http://coord.test", "--analysis-date", "2010-01-04"]) == 1
    out = capsys.readouterr()
    assert out.out == ""  # no summary of a research that did not happen
    assert "Refused: 404 Not Found [symbol_not_found]: no expert could analyse 600519.SH" in out.err
    assert "research 600519.SH as of 2010-01-04, session 5b0c6f0e-1" in out.err
    assert "every expert (2): research 404 symbol_not_found: no data for XYZ.SH" in out.err
    assert "`--universe` lists the symbols" in out.err
    assert "HTTP 404" in out.err


@respx.mock
def test_cli_prints_a_date_before_the_data_with_the_earliest_usable_date(capsys: pytest.CaptureFixture[str]) -> None:
    detail = "61 bars before 2010-01-04, 120 needed"
    body = _refused(422, "insufficient_history", detail, earliest_usable_date="2010-07-01")
    body["detail"] = f"every expert failed: technical_analyst: research 422 insufficient_history: {detail}"
    respx.post("http://coord.test/api/v1/coordinator/research").mock(return_value=httpx.Response(422, json=body))
    cli = _load(RESEARCH_CLI)
    assert cli.main(["600519.SH", "--url", "http://coord.test", "--analysis-date", "2010-01-04"]) == 1
    err = capsys.readouterr().err
    assert "Refused: 422 Unprocessable Content [insufficient_history]\n" in err  # the detail only listed the reasons
    assert f"every expert (2): research 422 insufficient_history: {detail}" in err
    assert "earliest usable date: 2010-07-01 (try --analysis-date 2010-07-01 or later)" in err
    assert err.count(detail) == 1  # the reasons already in the detail are not repeated
    # A bare problem (no research in it) says the date too.
    bare = {key: body[key] for key in ("type", "title", "status", "detail", "code", "earliest_usable_date")}
    assert "earliest usable date: 2010-07-01" in cli.format_problem(422, bare)


UNIVERSE: dict[str, Any] = {
    "data_provider": "offline",
    "open_ended": False,
    "count": 3,
    "symbols": [
        {
            "symbol": "600519.SH",
            "market": "CN",
            "bars": {"first": "2015-01-05", "last": "2025-09-30", "count": 2614},
            "financials": {"first": "2015-12-31", "last": "2024-12-31", "count": 10},
            "valuation": {"first": "2020-01-02", "last": "2025-09-30", "count": 1397},
        },
        {
            "symbol": "000021.SZ",
            "market": "CN",
            "bars": {"first": "2020-01-02", "last": "2025-09-30", "count": 1395},
            "financials": None,
            "valuation": None,
        },
        {
            "symbol": "AAPL",
            "market": "US",
            "bars": {"first": "2015-01-02", "last": "2025-09-30", "count": 950},
            "financials": {"first": "2021-09-25", "last": "2024-09-28", "count": 4},
            "valuation": None,
        },
    ],
}


@respx.mock
def test_cli_lists_the_universe_of_the_research_service_at_research_url(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    Universe.model_validate(UNIVERSE)  # the fake answers what the contract says
    route = respx.get("http://research.test/api/v1/research/universe").mock(
        return_value=httpx.Response(200, json=UNIVERSE)
    )
    monkeypatch.setenv("RESEARCH_URL", "http://research.test")
    cli = _load(RESEARCH_CLI)
    assert cli.main(["--universe"]) == 0
    assert route.called
    lines = capsys.readouterr().out.splitlines()
    header, rows, total = lines[0], lines[1:4], lines[4]
    assert header.split() == ["symbol", "market", "daily", "bars", "days", "financials", "(period", "ends)",
                              "reports", "valuation", "days"]  # fmt: skip
    assert rows[0].split() == ["600519.SH", "CN", "2015-01-05", "..", "2025-09-30", "2614", "2015-12-31", "..",
                               "2024-12-31", "10", "2020-01-02", "..", "2025-09-30", "1397"]  # fmt: skip
    assert rows[1].split() == ["000021.SZ", "CN", "2020-01-02", "..", "2025-09-30", "1395", "no", "no"]
    assert rows[2].split()[-1] == "no"
    for column in ("market", "daily bars", "financials", "valuation"):  # aligned under its header
        assert {row[header.index(column)] for row in rows} != {" "}
        assert all(row[header.index(column) - 1] == " " for row in rows)
    assert rows[0].index("2614") + 4 == rows[1].index("1395") + 4 == rows[2].index(" 950") + 4  # counts right-aligned
    assert total == "3 symbols, data provider offline: 3 with daily bars, 2 with financials, 1 with valuation"


@respx.mock
def test_cli_says_a_live_provider_has_no_universe(capsys: pytest.CaptureFixture[str]) -> None:
    body = {"data_provider": "akshare", "open_ended": True, "count": 0, "symbols": []}
    respx.get("http://r.test/api/v1/research/universe").mock(return_value=httpx.Response(200, json=body))
    cli = _load(RESEARCH_CLI)
    assert cli.main(["--universe", "--research-url", "http://r.test/"]) == 0
    assert capsys.readouterr().out.strip() == (
        "Data provider akshare is open-ended: any symbol it can fetch may be researched; there is no list of them."
    )


def test_cli_universe_says_when_the_research_service_is_not_reachable(capsys: pytest.CaptureFixture[str]) -> None:
    cli = _load(RESEARCH_CLI)
    url = f"http://127.0.0.1:{_free_port()}"
    assert cli.main(["--universe", "--research-url", url]) == 2
    assert f"The research service is not reachable at {url}. Start the stack with `make run`." in (
        capsys.readouterr().err
    )


def test_cli_help_documents_the_analysis_date_and_the_universe(capsys: pytest.CaptureFixture[str]) -> None:
    cli = _load(RESEARCH_CLI)
    with pytest.raises(SystemExit) as exited:
        cli.main(["--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for needle in ("--analysis-date YYYY-MM-DD", "DATE=2024-06-28", "⚠ stale", "insufficient_history", "--universe",
                   "--research-url", "RESEARCH_URL"):  # fmt: skip
        assert needle in text


# A variable every service reads (service_kit.settings), set to what none accepts.
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


@respx.mock
def test_cli_sends_the_api_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    route = respx.get("http://coord.test/api/v1/coordinator/sessions").mock(
        return_value=httpx.Response(200, json={"items": [], "total": 0, "limit": 20, "offset": 0})
    )
    monkeypatch.setenv("STOCK_RESEARCH_API_KEY", "sr_cli-test-key")
    cli = _load(RESEARCH_CLI)
    assert cli.main(["--sessions", "--url", "http://coord.test"]) == 0
    assert route.calls.last.request.headers["authorization"] == "Bearer sr_cli-test-key"


EVENTS = (
    "\n\n".join(
        [
            'event: snapshot\ndata: {"session_id": "5b0c6f0e-1", "status": "queued", "queue_position": 1}',
            'event: session.started\ndata: {"instance": "i-1"}\nid: 2',
            'event: expert.started\ndata: {"expert": "technical_analyst"}\nid: 3',
            'event: expert.completed\ndata: {"expert": "technical_analyst", "signal": "BULLISH", "confidence": 0.72, '
            '"duration_ms": 1234.0, "attempts": 1}\nid: 4',
            'event: expert.failed\ndata: {"expert": "catalyst_detective", "message": "news source timed out (504)", '
            '"duration_ms": 300.0}\nid: 5',
            'event: debate.completed\ndata: {"direction": "BULLISH", "confidence": 0.66, "duration_ms": 2500.0}\nid: 6',
            'event: verdict.completed\ndata: {"action": "BUY", "position": 15.0, "duration_ms": 900.0}\nid: 7',
            'event: session.partial\ndata: {"status": "partial"}\nid: 8',
        ]
    )
    + "\n\n"
)


@respx.mock
def test_cli_follows_a_research_stage_by_stage_then_summarises_it(capsys: pytest.CaptureFixture[str]) -> None:
    respx.get("http://coord.test/api/v1/coordinator/universe").mock(return_value=httpx.Response(200, json=UNIVERSE))
    session_id = RESPONSE["session_id"]
    links = {"self": f"/s/{session_id}", "events": f"/s/{session_id}/events", "cancel": f"/s/{session_id}/cancel"}
    posted = respx.post("http://coord.test/api/v1/coordinator/research").mock(
        return_value=httpx.Response(202, json={"session_id": session_id, "status": "queued", "links": links})
    )
    respx.get(f"http://coord.test/api/v1/coordinator/sessions/{session_id}/events").mock(
        return_value=httpx.Response(200, text=EVENTS, headers={"content-type": "text/event-stream"})
    )
    detail = {**RESPONSE, "status": "partial", "expert_results": {**RESPONSE["expert_results"]}}
    respx.get(f"http://coord.test/api/v1/coordinator/sessions/{session_id}").mock(
        return_value=httpx.Response(200, json=detail)
    )
    cli = _load(RESEARCH_CLI)
    assert cli.main(["600519.SH", "--url", "http://coord.test"]) == 0
    out = capsys.readouterr()
    assert posted.calls.last.request.headers["Prefer"] == "respond-async"
    assert re.search(r"✓ technical_analyst\s+BULLISH, confidence 0\.72\s+1\.2 s", out.err)
    assert re.search(r"✗ catalyst_detective\s+news source timed out \(504\)\s+0\.3 s", out.err)
    assert re.search(r"✓ debate\s+BULLISH, confidence 0\.66\s+2\.5 s", out.err)
    assert re.search(r"✓ verdict\s+BUY, position 15\.0 %\s+0\.9 s", out.err)
    assert "Research 600519.SH: PARTIAL" in out.out
    assert "  action         BUY" in out.out


@respx.mock
def test_cli_detaches_and_cancels(capsys: pytest.CaptureFixture[str]) -> None:
    links = {"self": "/s/1", "events": "/s/1/events", "cancel": "/s/1/cancel"}
    respx.post("http://coord.test/api/v1/coordinator/research").mock(
        return_value=httpx.Response(
            202, json={"session_id": "1", "status": "queued", "queue_position": 2, "links": links}
        )
    )
    respx.post("http://coord.test/api/v1/coordinator/sessions/1/cancel").mock(
        return_value=httpx.Response(202, json={"session_id": "1", "status": "cancelled", "links": links})
    )
    cli = _load(RESEARCH_CLI)
    assert cli.main(["600519.SH", "--detach", "--url", "http://coord.test", "--analysis-date", "2025-09-30"]) == 0
    assert cli.main(["--cancel", "1", "--url", "http://coord.test"]) == 0
    out = capsys.readouterr().out
    assert "Session 1: queued" in out
    assert "queue position  2" in out
    assert "events          /s/1/events" in out
    assert "Session 1: cancelled" in out
