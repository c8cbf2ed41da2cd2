"""scripts/research_cli.py on what goes wrong (issue 38), and its batches and watchlists (issue 49): an error every
expert shares said once, the wait of a 429, a permanent expert failure (research 404/422) never offered for retry and a
refused retry said plainly, a research without a date warned about first when the newest bar is far behind today, and
`make research` / `make cli` printing a refusal without make's own error line. The coordinator is faked with respx (no
processes)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import respx
from deploy_manifests import ROOT
from e2e_support import load_script

from shared_contracts.experts import ExpertType

RESEARCH_CLI = ROOT / "scripts" / "research_cli.py"
URL = "http://coord.test"
API = f"{URL}/api/v1/coordinator"
SESSION = "5b0c6f0e-1"
EXPERTS = [e.value for e in ExpertType]
NOT_FOUND = (
    "research 404 symbol_not_found: 0700.HK is not in the offline snapshot; it has 121 symbols "
    "(GET /api/v1/research/universe lists them), e.g. 000001.SZ, 000021.SZ"
)
TIMED_OUT = "research 504 peer_timeout: no answer within 120 s"


def _cli() -> ModuleType:
    return load_script(RESEARCH_CLI, "research_cli_under_test")


def _ok(bars: str = "2025-09-30", analysis_date: str = "2026-11-27") -> dict[str, Any]:
    return {
        "status": "success",
        "data": {
            "signal": "NEUTRAL",
            "confidence": 0.44,
            "summary_reasoning": "Flat.",
            "risk_warning": "None specific.",
            "analysis_date": analysis_date,
            "as_of": bars,
            "inputs_as_of": {"bars": bars},
            "staleness": [],
        },
    }


def _failed(error: str, **extra: Any) -> dict[str, Any]:
    return {"status": "failed", "error": error, **extra}


def _research(experts: dict[str, Any], status: str = "partial", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "symbol": "600519.SH",
        "analysis_date": "2026-11-27",
        "overall_status": status,
        "retry_count": 0,
        "expert_results": experts,
        "debate_outcome": None,
        "verdict": None,
        **extra,
    }


STAGES = {"debate": {"status": "skipped", "error": None}, "judge": {"status": "skipped", "error": None}}


# ------------------------------------------------------------------- an error every expert shares, once


def test_an_error_every_expert_shares_is_one_line_of_the_summary() -> None:
    cli = _cli()
    text = cli.format_summary(_research({e: _failed(NOT_FOUND) for e in EXPERTS}, "failed"), STAGES)
    joined = " ".join(text.split())
    assert joined.count("0700.HK is not in the offline snapshot") == 1
    assert f"FAILED all {len(EXPERTS)} experts: research 404 symbol_not_found: 0700.HK" in joined
    assert text.count("  FAILED  ") == 1
    # Experts that failed alike but not all: one block naming them, the others as before.
    mixed = {**{e: _failed(NOT_FOUND) for e in EXPERTS[:2]}, EXPERTS[2]: _failed(TIMED_OUT), EXPERTS[3]: _ok()}
    lines = cli.format_summary(_research(mixed), STAGES).splitlines()
    assert f"  FAILED  {EXPERTS[0]}, {EXPERTS[1]}" in lines
    assert f"  FAILED  {EXPERTS[2]}" in lines
    assert " ".join(lines).count("0700.HK is not in the offline snapshot") == 1


def test_a_refusal_shared_by_every_expert_is_one_line_and_the_detail_does_not_list_it_again() -> None:
    cli = _cli()
    listed = "; ".join(f"{e}: {NOT_FOUND}" for e in EXPERTS)
    body = _research({e: _failed(NOT_FOUND) for e in EXPERTS}, "failed") | {
        "type": "about:blank",
        "title": "Symbol not found",
        "status": 404,
        "detail": f"every selected expert failed ({listed})",
        "code": "symbol_not_found",
    }
    text = cli.format_refusal(404, body)
    assert text.splitlines()[0] == "Refused: 404 Symbol not found [symbol_not_found]"
    assert " ".join(text.split()).count("0700.HK is not in the offline snapshot") == 1
    assert f"every expert ({len(EXPERTS)}): research 404 symbol_not_found" in text


def test_following_a_research_says_a_repeated_failure_in_a_few_words() -> None:
    cli = _cli()
    seen: dict[str, str] = {}
    lines = [
        cli.format_event("expert.failed", {"expert": expert, "message": NOT_FOUND, "duration_ms": 10.0}, seen)
        for expert in EXPERTS
    ]
    assert "0700.HK is not in the offline snapshot" in lines[0]
    assert all(f"the same as {EXPERTS[0]}" in line for line in lines[1:])
    other = cli.format_event("expert.failed", {"expert": "x", "message": TIMED_OUT}, seen)
    assert "peer_timeout" in other


# ------------------------------------------------------------------------------------- --sessions


@respx.mock
def test_sessions_show_the_analysis_date_the_status_and_the_action(capsys: pytest.CaptureFixture[str]) -> None:
    item = {"session_id": SESSION, "symbol": "600519.SH", "retry_count": 0, "created_at": "2026-11-27T09:15:00Z"}
    page = {
        "items": [
            item | {"analysis_date": "2025-09-30", "status": "completed", "action": "BUY"},
            item | {"analysis_date": "2021-06-30", "status": "failed", "action": None},
        ],
        "total": 2,
        "limit": 20,
        "offset": 0,
    }
    respx.get(f"{API}/sessions").mock(return_value=httpx.Response(200, json=page))
    assert _cli().main(["--sessions", "--url", URL]) == 0
    header, first, second = capsys.readouterr().out.splitlines()[1:4]
    assert header.split() == ["created", "(UTC)", "session", "symbol", "as", "of", "status", "action"]
    assert first.split()[:7] == ["2026-11-27", "09:15", SESSION, "600519.SH", "2025-09-30", "completed", "BUY"]
    assert second.split()[:7] == ["2026-11-27", "09:15", SESSION, "600519.SH", "2021-06-30", "failed", "-"]
    assert first.index("BUY") == header.index("action")  # under its header


# ------------------------------------------------------------------------------------------- 429


@respx.mock
def test_a_429_says_how_long_to_wait(capsys: pytest.CaptureFixture[str]) -> None:
    _universe()
    problem = {"title": "Too Many Requests", "status": 429, "detail": "research quota spent", "code": "rate_limited"}
    respx.post(f"{API}/research").mock(return_value=httpx.Response(429, json=problem, headers={"Retry-After": "37"}))
    assert _cli().main(["600519.SH", "--url", URL]) == 1
    err = capsys.readouterr().err
    assert "Refused: 429 Too Many Requests [rate_limited]: research quota spent" in err
    assert "wait 37 s before trying again (Retry-After)" in err


# ------------------------------------------------------------------------------ permanent failures


def test_a_permanent_expert_failure_is_not_offered_for_retry() -> None:
    cli = _cli()
    mixed = {EXPERTS[0]: _failed(NOT_FOUND), EXPERTS[1]: _failed(TIMED_OUT), EXPERTS[2]: _ok()}
    text = cli.format_summary(_research(mixed), STAGES)
    retry = next(line for line in text.splitlines() if line.startswith("Retry"))
    assert retry == f'Retry    make cli ARGS="--retry {SESSION}"   worth retrying: {EXPERTS[1]}'
    assert "[permanent: a retry gets the same answer]" in " ".join(text.split())

    insufficient = "research 422 insufficient_history: 61 bars before 2021-06-30, 120 needed"
    permanent = {EXPERTS[0]: _failed(NOT_FOUND), EXPERTS[1]: _failed(insufficient), EXPERTS[2]: _ok()}
    text = cli.format_summary(_research(permanent), STAGES)
    assert "--retry" not in text
    assert "Retry    not offered: every failure is permanent" in text

    assert "Retry" not in cli.format_summary(_research({EXPERTS[0]: _ok()}, "completed"), STAGES)


def test_the_session_reads_retryable_flag_wins_over_the_status_code() -> None:
    cli = _cli()
    flagged = {EXPERTS[0]: _failed(NOT_FOUND, retryable=True), EXPERTS[1]: _failed(TIMED_OUT, retryable=False)}
    text = cli.format_summary(_research(flagged), STAGES)
    retry = next(line for line in text.splitlines() if "Retry" in line)
    assert retry.endswith(f"worth retrying: {EXPERTS[0]}")
    assert " ".join(text.split()).count("[permanent: a retry gets the same answer]") == 1  # the 504 flagged so
    assert "peer_timeout: no answer within 120 s [permanent" in " ".join(text.split())
    # The flag survives the session read being turned into a research response (--follow, a retry).
    detail = {**_research(flagged), "status": "partial", "expert_results": {EXPERTS[0]: flagged[EXPERTS[0]]}}
    assert cli._as_research_response(detail)["expert_results"][EXPERTS[0]]["retryable"] is True
    assert cli.is_retryable({"status": "failed", "error": "research 422 insufficient_history: x"}) is False
    assert cli.is_retryable({"status": "failed", "error": "debate 503 llm_unavailable: x"}) is True


@respx.mock
def test_a_retry_the_coordinator_refuses_is_said_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    problem = {
        "title": "Conflict",
        "status": 409,
        "code": "not_retryable",
        "detail": f"Session {SESSION} has nothing to retry: every failure is permanent (research 404).",
    }
    route = respx.post(f"{API}/research/{SESSION}/retry").mock(return_value=httpx.Response(409, json=problem))
    assert _cli().main(["--retry", SESSION, "--url", URL]) == 1
    assert route.called
    err = " ".join(capsys.readouterr().err.split())
    assert f"Not retried: 409 Conflict [not_retryable]: Session {SESSION} has nothing to retry" in err
    assert "gets the same answer again: research another symbol (--universe lists them)" in err
    already = {**problem, "code": "already_retried", "detail": "Session x was retried by y."}
    assert "retry the newest session of its chain" in _cli().format_retry_refusal(409, already)


# ------------------------------------------------------------------- a research without a date


UNIVERSE: dict[str, Any] = {
    "data_provider": "offline",
    "open_ended": False,
    "count": 2,
    "symbols": [
        {"symbol": "600519.SH", "market": "CN", "bars": {"first": "2022-01-04", "last": "2025-09-30", "count": 900}},
        {"symbol": "AAPL", "market": "US", "bars": {"first": "2023-01-03", "last": "2025-08-14", "count": 660}},
    ],
}


def _universe(body: dict[str, Any] | None = None) -> respx.Route:
    return respx.get(f"{API}/universe").mock(return_value=httpx.Response(200, json=body or UNIVERSE))


@respx.mock
def test_a_research_without_a_date_is_made_as_of_the_symbols_last_bar_said_before_it_is_sent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _universe()
    body = _research({e: _ok(analysis_date="2025-09-30") for e in EXPERTS}, "completed", analysis_date="2025-09-30")
    posted = respx.post(f"{API}/research").mock(return_value=httpx.Response(200, json=body))
    respx.get(f"{API}/sessions/{SESSION}").mock(return_value=httpx.Response(200, json=STAGES))

    assert _cli().main(["600519.SH", "--url", URL]) == 0

    sent = json.loads(posted.calls[0].request.content)
    assert sent["analysis_date"] == "2025-09-30"
    out, err = capsys.readouterr()
    said = "No --analysis-date: the research is made as of 2025-09-30, the last trading day the data has for 600519.SH."
    assert err.splitlines()[:2] == [said, f"POST {API}/research"]  # said first, then sent
    assert out.splitlines()[1] == (
        "Analysis date 2025-09-30 (the last trading day the data has for 600519.SH; no --analysis-date given)"
    )


def test_a_live_provider_or_an_unlisted_symbol_takes_the_last_weekday_up_to_today() -> None:
    cli = _cli()
    sunday = dt.date(2026, 11, 29)
    with respx.mock:
        _universe({"data_provider": "akshare", "open_ended": True, "count": 0, "symbols": []})
        with httpx.Client() as client:
            day, why = cli.default_analysis_date(client, URL, ["600519.SH"], today=sunday)
    assert (day, why) == ("2026-11-27", "the last weekday up to today (the data provider, akshare, is live)")
    with respx.mock:
        _universe()
        with httpx.Client() as client:
            assert cli.default_analysis_date(client, URL, ["0700.HK"], today=dt.date(2026, 11, 25))[0] == "2026-11-25"
            batch = cli.default_analysis_date(client, URL, ["600519.SH", "AAPL"], today=sunday)
    assert batch == (
        "2025-09-30",
        "the last trading day the data has for 600519.SH, AAPL; the data of some ends earlier (AAPL on 2025-08-14)",
    )
    with respx.mock:
        respx.get(f"{API}/universe").mock(return_value=httpx.Response(502, json={"code": "peer_unavailable"}))
        with httpx.Client() as client:
            day, why = cli.default_analysis_date(client, URL, ["600519.SH"], today=sunday)
    assert (day, why) == ("2026-11-27", "the last weekday up to today (the data's universe could not be read)")


@respx.mock
def test_the_language_is_sent_with_the_research(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _research({EXPERTS[0]: _ok()}, "completed")
    posted = respx.post(f"{API}/research").mock(return_value=httpx.Response(200, json=body))
    respx.get(f"{API}/sessions/{SESSION}").mock(return_value=httpx.Response(200, json=STAGES))
    dated = ["600519.SH", "--url", URL, "--analysis-date", "2025-06-30"]
    assert _cli().main([*dated, "--language", "en"]) == 0
    monkeypatch.setenv("REPORT_LANGUAGE", "en")
    assert _cli().main(dated) == 0
    monkeypatch.setenv("REPORT_LANGUAGE", "fr")  # not a language of the reports: the services' default
    assert _cli().main(dated) == 0
    assert [json.loads(c.request.content)["language"] for c in posted.calls] == ["en", "en", "zh"]
    with pytest.raises(SystemExit):
        _cli().main([*dated, "--language", "de"])
    assert "invalid choice: 'de'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ exit codes


@respx.mock
def test_a_research_that_failed_exits_1_though_its_record_is_read_with_a_200() -> None:
    _universe()
    respx.post(f"{API}/research").mock(
        return_value=httpx.Response(200, json=_research({e: _failed(NOT_FOUND) for e in EXPERTS}, "failed"))
    )
    respx.get(f"{API}/sessions/{SESSION}").mock(return_value=httpx.Response(200, json=STAGES))
    assert _cli().main(["0700.HK", "--url", URL]) == 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
@pytest.mark.parametrize(
    "target", ["research SYMBOL=600519.SH", "cli ARGS=--sessions", "cli ARGS=--batch=600519.SH,000001.SZ"]
)
def test_make_prints_a_refusal_without_its_own_error_line_unless_strict(target: str) -> None:
    """The CLI exits 2 (nothing listens at COORDINATOR_URL); make runs it on this interpreter (RUN) without
    bootstrapping (UV names a file that exists)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "STRICT")}
    env["COORDINATOR_URL"] = f"http://127.0.0.1:{_free_port()}"
    run = f"RUN=env PATH={Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    command = ["make", *target.split(), f"UV={sys.executable}", run]
    relaxed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert relaxed.returncode == 0, relaxed.stderr
    assert "is not reachable" in relaxed.stderr
    assert "make:" not in relaxed.stdout + relaxed.stderr
    strict = subprocess.run(
        [*command, "STRICT=1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert strict.returncode == 2
    assert "is not reachable" in strict.stderr
    assert "Error 2" in strict.stderr  # make's line: what a script checking the exit status asked for


# ------------------------------------------------------------------------------------ batches


@respx.mock
def test_a_batch_prints_its_progress_then_the_ranked_table(capsys: pytest.CaptureFixture[str]) -> None:
    batch = "/api/v1/coordinator/batches/b-1"
    items = [
        {"symbol": "000001.SZ", "session_id": "s-1", "status": "completed", "action": "BUY", "score": 0.61,
         "universe_rank": 0.93, "position_percent": 8.0, "confidence": 0.57},
        {"symbol": "999999.SZ", "session_id": "s-2", "status": "failed"},
    ]  # fmt: skip
    view = {"batch_id": "b-1", "status": "partial", "analysis_date": "2025-06-30", "items": items,
            "progress": {"done": 2, "total": 2, "failed": 1}}  # fmt: skip
    submitted = respx.post(f"{API}/batches").mock(
        return_value=httpx.Response(202, json={"batch_id": "b-1"}, headers={"Location": batch})
    )
    stream = 'event: batch.progress\nid: 1\ndata: {"done": 1, "total": 2, "failed": 0}\n\n'
    stream += 'event: batch.partial\nid: 2\ndata: {"done": 2, "total": 2, "failed": 1}\n\n'
    respx.get(f"{URL}{batch}/events").mock(return_value=httpx.Response(200, text=stream))
    respx.get(f"{URL}{batch}").mock(return_value=httpx.Response(200, json=view))

    code = _cli().main(
        ["--batch", "000001.SZ, 999999.SZ", "--analysis-date", "2025-06-30", "--language", "en", "--url", URL]
    )
    out, err = capsys.readouterr()

    assert code == 0
    sent = submitted.calls[0].request.content
    assert b'"symbols":["000001.SZ","999999.SZ"]' in sent
    assert b'"analysis_date":"2025-06-30"' in sent
    assert b'"language":"en"' in sent
    assert "1/2 done, 0 failed" in err
    assert "2/2 done, 1 failed" in err
    lines = out.splitlines()
    assert lines[0] == "batch b-1 as of 2025-06-30: partial, 2/2 done, 1 failed"
    assert lines[3].split() == ["1", "000001.SZ", "BUY", "+0.610", "93%", "8.0", "%", "57%", "s-1"]
    assert lines[4].split() == ["2", "999999.SZ", "failed", "—", "—", "—", "—", "s-2"]


# ------------------------------------------------------------------------------------ watchlists


def _watchlist(watchlist_id: str, name: str, symbols: list[str]) -> dict[str, Any]:
    return {"watchlist_id": watchlist_id, "name": name, "symbols": symbols}


@respx.mock
def test_a_watchlist_runs_by_name_and_prints_the_batchs_ranked_table(capsys: pytest.CaptureFixture[str]) -> None:
    batch = "/api/v1/coordinator/batches/b-7"
    first = {"items": [_watchlist("w-1", "Banks", ["000001.SZ"])], "total": 2, "limit": 1, "offset": 0}
    second = {"items": [_watchlist("w-2", "Core holdings", ["600519.SH", "000001.SZ"])], "total": 2}
    listed = respx.get(f"{API}/watchlists").mock(
        side_effect=[httpx.Response(200, json=first), httpx.Response(200, json=second)]
    )
    run = respx.post(f"{API}/watchlists/w-2/run").mock(
        return_value=httpx.Response(202, json={"batch_id": "b-7", "links": {"self": batch}})
    )  # no Location: the body's links.self names the batch
    items = [
        {"symbol": "600519.SH", "session_id": "s-1", "status": "completed", "action": "HOLD", "score": 0.16,
         "universe_rank": 0.61, "position_percent": 0.0, "confidence": 0.53},
        {"symbol": "000001.SZ", "session_id": "s-2", "status": "completed", "action": "SELL", "score": -0.41,
         "universe_rank": 0.08, "position_percent": 5.0, "confidence": 0.55},
    ]  # fmt: skip
    view = {"batch_id": "b-7", "status": "completed", "analysis_date": "2025-06-30", "items": items,
            "progress": {"done": 2, "total": 2, "failed": 0}}  # fmt: skip
    stream = 'event: batch.completed\nid: 2\ndata: {"done": 2, "total": 2, "failed": 0}\n\n'
    respx.get(f"{URL}{batch}/events").mock(return_value=httpx.Response(200, text=stream))
    respx.get(f"{URL}{batch}").mock(return_value=httpx.Response(200, json=view))

    code = _cli().main(["--watchlist", "Core holdings", "--analysis-date", "2025-06-30", "--url", URL])
    out, err = capsys.readouterr()

    assert code == 0
    assert [call.request.url.params["offset"] for call in listed.calls] == ["0", "1"]
    assert run.calls[0].request.content == b'{"analysis_date":"2025-06-30"}'
    assert "Core holdings: 2 symbols" in err
    assert "2/2 done, 0 failed" in err
    lines = out.splitlines()
    assert lines[0] == "batch b-7 as of 2025-06-30: completed, 2/2 done, 0 failed"
    assert lines[3].split() == ["1", "600519.SH", "HOLD", "+0.160", "61%", "0.0", "%", "53%", "s-1"]
    assert lines[4].split() == ["2", "000001.SZ", "SELL", "-0.410", "8%", "5.0", "%", "55%", "s-2"]


@respx.mock
def test_a_watchlist_run_without_a_date_sends_none_and_matches_the_name_ignoring_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    core = _watchlist("w-2", "Core holdings", ["600519.SH"])
    respx.get(f"{API}/watchlists").mock(return_value=httpx.Response(200, json={"items": [core], "total": 1}))
    run = respx.post(f"{API}/watchlists/w-2/run").mock(
        return_value=httpx.Response(503, json={"code": "queue_full", "detail": "Too many batches waiting."})
    )

    code = _cli().main(["--watchlist", "core HOLDINGS ", "--url", URL])

    assert code == 1
    assert run.calls[0].request.content == b"{}"
    assert "Refused" in capsys.readouterr().err


@respx.mock
def test_a_watchlist_the_caller_has_not_is_an_error_naming_those_it_has(capsys: pytest.CaptureFixture[str]) -> None:
    lists = [_watchlist("w-1", "Banks", ["000001.SZ"]), _watchlist("w-2", "Core holdings", ["600519.SH"])]
    respx.get(f"{API}/watchlists").mock(return_value=httpx.Response(200, json={"items": lists, "total": 2}))
    run = respx.post(url__regex=r".*/run$")

    code = _cli().main(["--watchlist", "Tech", "--url", URL])

    assert code == 1
    assert not run.called
    assert "No watchlist named 'Tech'. Yours: 'Banks', 'Core holdings'." in capsys.readouterr().err


@respx.mock
def test_a_caller_without_watchlists_is_told_where_to_make_one(capsys: pytest.CaptureFixture[str]) -> None:
    respx.get(f"{API}/watchlists").mock(return_value=httpx.Response(200, json={"items": [], "total": 0}))

    assert _cli().main(["--watchlist", "Tech", "--url", URL]) == 1
    assert "You have none: create one in the console" in capsys.readouterr().err


def test_batch_and_watchlist_together_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        _cli().main(["--batch", "600519.SH", "--watchlist", "Tech", "--url", URL])
    assert exit_.value.code == 2
    assert "give one of them" in capsys.readouterr().err


# ------------------------------------------------------------------------- words, not raw values (issue 51)

LONG_REASONING = "量比 1.8，换手率 2.1%；" * 30 + "合计 0.76。结论：观望，等待回调至支撑位附近再考虑。"


def _verdict(action: str, **extra: Any) -> dict[str, Any]:
    return {
        "symbol": "600519.SH",
        "action": action,
        "position_percent": 0.0 if action == "HOLD" else 12.0,
        "confidence": 0.534,
        "score": 0.159274,
        "universe_rank": 0.607438,
        "market_exposure": 0.8,
        "entry_strategy": "Wait for a pullback to support.",
        "stop_loss": {"percent_from_entry": -5.0, "price": None, "basis": "2 ATR below entry"},
        "take_profit": {"percent_from_entry": 8.0, "price": None, "basis": "prior high"},
        "time_horizon": "SHORT_TERM",
        "risk_warnings": ["Consumption slowdown", LONG_REASONING],
        "reasoning": LONG_REASONING,
        "engine": {"kind": "rules", "model": None, "fallback_reason": None},
        **extra,
    }


def _outputs(cli: ModuleType) -> dict[str, str]:
    """Everything the CLI prints for a research (BUY with an entry price, HOLD with and without levels), a failed
    expert, the sessions list, a batch, a job and every event of a stream, by name."""
    buy = _verdict("BUY", reference_price=1409.52, reference_date="2025-06-30",
                   stop_loss={"percent_from_entry": -5.0, "price": 1339.04, "basis": "2 ATR"},
                   take_profit={"percent_from_entry": 8.0, "price": 1522.28, "basis": "prior high"})  # fmt: skip
    hold_null = _verdict("HOLD", stop_loss=None, take_profit=None, reference_price=None, reference_date=None)
    debate = {"direction": "NEUTRAL", "confidence": 0.5, "conflict_resolution": LONG_REASONING, "engine": None}
    experts = {EXPERTS[0]: _ok(), EXPERTS[1]: _failed(TIMED_OUT), EXPERTS[2]: {"status": "failed", "error": None}}
    events = [
        ("snapshot", {"session_id": SESSION, "status": None, "queue_position": None}),
        ("session.started", {"instance": "i-1", "resumed_from": None, "stage": {"name": "experts"}}),
        ("expert.completed", {"expert": EXPERTS[0], "signal": None, "confidence": None, "duration_ms": None}),
        ("expert.failed", {"expert": EXPERTS[1], "message": None}),
        ("debate.completed", {"direction": None, "confidence": None}),
        ("verdict.completed", {"action": "HOLD", "position": 0.0, "stop": {"percent_from_entry": -5.0, "price": None},
                               "target": {"percent_from_entry": 8.0, "price": None}, "horizon": "SHORT_TERM"}),
        ("verdict.completed", {"action": "BUY", "position": 12.0, "stop": {"percent_from_entry": -5.0, "price": None},
                               "target": None, "horizon": None}),
        ("verdict.failed", {"message": None}),
        ("session.cancelled", {"reason": None}),
    ]  # fmt: skip
    sessions = {"items": [{"session_id": SESSION, "symbol": "600519.SH", "analysis_date": None, "status": "cancelled",
                           "action": None, "created_at": None, "retry_count": 0}], "total": 1}  # fmt: skip
    batch = {"batch_id": "b", "status": "partial", "analysis_date": "2025-09-30", "progress": {"done": 1, "total": 1},
             "items": [{"symbol": "X", "session_id": "s", "status": None, "action": None, "score": None}]}  # fmt: skip
    return {
        "buy": cli.format_summary(_research(experts, debate_outcome=debate, verdict=buy), STAGES),
        "hold": cli.format_summary(_research(experts, debate_outcome=debate, verdict=_verdict("HOLD")), STAGES),
        "hold without levels": cli.format_summary(_research(experts, verdict=hold_null), STAGES),
        "failed": cli.format_summary(_research({e: _failed(NOT_FOUND) for e in EXPERTS}, "failed"), STAGES),
        "sessions": cli.format_sessions(sessions),
        "batch": cli.format_batch(batch),
        "job": cli.format_job({"session_id": SESSION, "status": None, "links": {"self": "/s"}}),
        "events": "\n".join(cli.format_event(name, data, {}) or "" for name, data in events),
    }


def test_no_line_the_cli_prints_is_a_python_literal_or_none() -> None:
    outputs = _outputs(_cli())
    for name, text in outputs.items():
        for line in text.splitlines():
            assert "{'" not in line, f"{name}: {line}"
            assert "None" not in line, f"{name}: {line}"
            assert not line.rstrip().endswith(("...", "…")), f"{name}: {line}"  # nothing cut by the CLI


def _row(label: str, value: str) -> str:
    """A verdict line as the CLI aligns it: the label in a column of 15, the value after it."""
    return f"  {label:<15}{value}"


def test_the_verdict_is_aligned_words_with_the_entry_price_and_the_rank_as_a_percentile() -> None:
    lines = _outputs(_cli())["buy"].splitlines()
    start = lines.index("Verdict  [engine: rules]")
    block = lines[start + 1 :]
    assert block[0] == _row("action", "BUY, short term")
    assert block[1] == _row("position", "12.0 % of the portfolio")
    assert block[2].startswith(_row("confidence", "53 %. Confidence is the probability that this call is right"))
    entry = next(line for line in block if line.startswith("  entry price"))
    assert entry == _row("entry price", "1409.52, the close of 2025-06-30")
    assert _row("stop loss", "1339.04, \u22125.0 % from entry: 2 ATR") in block
    assert _row("take profit", "1522.28, +8.0 % from entry: prior high") in block
    score = next(line for line in block if line.startswith("  score"))
    assert score.startswith(_row("score", "+0.159 on a scale from \u22121 (most bearish) to +1 (most bullish)"))
    rank = next(line for line in block if line.startswith("  universe rank"))
    assert rank.startswith(_row("universe rank", "61st percentile: by that score the stock stands above 61 % of its"))
    labelled = [line for line in block[: block.index("")] if not line.startswith(" " * 17)]
    assert {line[16] for line in labelled} == {" "}  # every value starts in column 17
    assert all(line[17] != " " for line in labelled)


def test_a_hold_shows_no_stop_or_target_to_act_on() -> None:
    outputs = _outputs(_cli())
    hold = " ".join(outputs["hold"].split("\n  "))  # a wrapped value joined to its line
    if_entering = "none: a HOLD opens no position; only if entering:"
    assert " ".join(_row("stop loss", f"{if_entering} \u22125.0 % from entry: 2 ATR below entry").split()) in " ".join(
        hold.split()
    )
    assert " ".join(_row("take profit", f"{if_entering} +8.0 % from entry: prior high").split()) in " ".join(
        hold.split()
    )
    bare = outputs["hold without levels"].splitlines()
    assert _row("stop loss", "none: a HOLD opens no position") in bare
    assert _row("take profit", "none: a HOLD opens no position") in bare
    events = outputs["events"].splitlines()
    assert "  \u2713 verdict              HOLD, position 0.0 %, short term" in events  # no stop, no target
    assert "  \u2713 verdict              BUY, position 12.0 %, stop \u22125.0 %" in events


def test_texts_are_printed_whole() -> None:
    for name in ("buy", "hold"):
        text = "".join(_outputs(_cli())[name].split())
        assert text.count("".join(LONG_REASONING.split())) == 3, name  # the debate's, the verdict's, a risk warning


@respx.mock
def test_cancel_says_what_it_does_before_it_sends_it(capsys: pytest.CaptureFixture[str]) -> None:
    links = {"self": f"/s/{SESSION}", "events": f"/s/{SESSION}/events", "cancel": f"/s/{SESSION}/cancel"}
    route = respx.post(f"{API}/sessions/{SESSION}/cancel").mock(
        return_value=httpx.Response(202, json={"session_id": SESSION, "status": "cancelled", "links": links})
    )
    assert _cli().main(["--cancel", SESSION, "--url", URL]) == 0
    out, err = capsys.readouterr()
    first, sent = " ".join(err.split()).split(" POST ", 1)
    assert first.startswith(f"Cancelling session {SESSION}: nothing more of it is started")
    assert sent.startswith(f"{API}/sessions/{SESSION}/cancel HTTP 202")
    assert out.splitlines()[0] == f"Session {SESSION}: cancelled"
    assert out.endswith("\n")
    finished = {"title": "Conflict", "status": 409, "code": "session_finished", "detail": "It had completed."}
    route.mock(return_value=httpx.Response(409, json=finished))
    assert _cli().main(["--cancel", SESSION, "--url", URL]) == 1
    out, err = capsys.readouterr()
    assert out == "Refused: 409 Conflict [session_finished]: It had completed.\n"
    assert "exit status 1" in err


def test_chinese_text_wraps_at_the_screen_width_without_a_line_starting_with_closing_punctuation() -> None:
    cli = _cli()
    text = "截至 2025-09-30 技术面中性：收盘价 1,443.99 低于或等于 MA20 1,478.48（DIF -5.947，DEA 0.724）。" * 6
    lines = cli.fill(text, 60, "    ", "    ").splitlines()
    assert len(lines) > 3
    assert all(cli._columns(line) <= 60 for line in lines)  # a CJK character takes two columns
    assert not any(line.strip()[0] in cli.CLOSING for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())  # nothing lost, nothing cut
    assert "1,478.48" in " ".join(lines)  # never inside a word


def test_a_cancelled_session_says_so_where_the_debate_and_the_verdict_would_be() -> None:
    cancelled = _research({EXPERTS[0]: _ok()}, "cancelled")
    text = _cli().format_summary(cancelled, {"debate": {"status": None}, "judge": None})
    assert "Debate   (not reached: the session was cancelled)" in text
    assert "Verdict  (not reached: the session was cancelled)" in text
    # Cancelled before any expert answered: the stored stages are still pending, which is said as not reached.
    early = _cli().format_summary(
        _research({}, "cancelled"), {"debate": {"status": "pending"}, "judge": {"status": "pending"}}
    )
    assert "  (not reached: the session was cancelled)" in early.splitlines()
    assert "Debate   (not reached: the session was cancelled)" in early
    assert "pending" not in early
