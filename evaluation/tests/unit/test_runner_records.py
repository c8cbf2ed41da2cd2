"""A coordinator answer → one ResearchRecord (ok, no verdict, refused, failed), and the HTTP around it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import httpx
import pytest

from evaluation.records import ResearchRecord
from evaluation.runner import Job, plan_jobs, record_from_response, research

JOB = Job("policy", ("technical_analyst", "financial_auditor"), "600519.SH", date(2024, 6, 30))
URL = "http://coordinator.test"


def answer(**overrides: Any) -> dict[str, Any]:
    """A trimmed 200 answer of the coordinator (the fields the runner reads, and some it does not)."""
    body: dict[str, Any] = {
        "session_id": "s-1",
        "symbol": "600519.SH",
        "analysis_date": "2024-06-30",
        "overall_status": "partial",
        "expert_results": {
            "technical_analyst": {
                "status": "success",
                "data": {
                    "as_of": "2024-06-28",
                    "signal": "BEARISH",
                    "technical_indicators": {"close": 1417.03, "atr14": 27.529, "rsi14": 23.88},
                },
                "error": None,
            },
            "financial_auditor": {"status": "failed", "data": None, "error": "research 404 data_unavailable: …"},
        },
        "debate_outcome": {"symbol": "600519.SH", "direction": "BEARISH", "confidence": 0.2},
        "verdict": {
            "symbol": "600519.SH",
            "action": "SELL",
            "position_percent": 0.0,
            "confidence": 0.62,
            "entry_strategy": "…",
            "stop_loss": {"percent_from_entry": 3.72, "price": 1469.8, "basis": "…"},
            "take_profit": {"percent_from_entry": -8.5, "price": 1296.5, "basis": "…"},
            "time_horizon": "MEDIUM_TERM",
            "risk_warnings": [],
            "reasoning": "…",
            "engine": {"kind": "rules", "model": None, "fallback_reason": None},
        },
        "retry_count": 0,
    }
    body.update(overrides)
    return body


def test_a_200_with_a_verdict_is_ok_with_the_verdict_debate_and_technical_fields() -> None:
    record = record_from_response(JOB, 200, answer())
    assert record == ResearchRecord(
        configuration="policy",
        symbol="600519.SH",
        analysis_date=date(2024, 6, 30),
        status="ok",
        as_of=date(2024, 6, 28),
        action="SELL",
        confidence=0.62,
        position_percent=0.0,
        stop_percent=3.72,
        take_profit_percent=-8.5,
        time_horizon="MEDIUM_TERM",
        direction="BEARISH",
        debate_confidence=0.2,
        overall_status="partial",
        failed_experts=("financial_auditor",),
        engine="rules",
        atr=27.529,
        session_id="s-1",
    )
    assert record.entry_day == date(2024, 6, 28)


def test_the_engine_is_the_llm_model_when_there_is_one() -> None:
    body = answer()
    body["verdict"]["engine"] = {"kind": "llm", "model": "deepseek-chat", "fallback_reason": None}
    assert record_from_response(JOB, 200, body).engine == "deepseek-chat"


def test_without_a_technical_result_as_of_and_atr_are_missing_and_the_entry_is_the_grid_date() -> None:
    body = answer()
    body["expert_results"]["technical_analyst"] = {"status": "failed", "data": None, "error": "research 422 …"}
    record = record_from_response(JOB, 200, body)
    assert (record.status, record.as_of, record.atr) == ("ok", None, None)
    assert record.failed_experts == ("financial_auditor", "technical_analyst")
    assert record.entry_day == JOB.analysis_date


def test_a_200_with_a_null_verdict_is_failed_and_keeps_what_it_has() -> None:
    record = record_from_response(JOB, 200, answer(verdict=None, debate_outcome=None, overall_status="partial"))
    assert record.status == "failed"
    assert record.reason == "no verdict (overall_status partial, no debate outcome)"
    assert (record.action, record.direction, record.session_id) == (None, None, "s-1")
    assert record.as_of == date(2024, 6, 28)


def problem(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": "about:blank", "title": "x", "status": status, "code": code, "detail": detail, **extra}


def test_a_404_symbol_not_found_is_refused_with_code_and_detail() -> None:
    body = problem(404, "symbol_not_found", "every selected expert failed (…)", session_id="s-2")
    record = record_from_response(JOB, 404, body)
    assert (record.status, record.reason, record.session_id) == (
        "refused",
        "symbol_not_found: every selected expert failed (…)",
        "s-2",
    )


def test_a_422_insufficient_history_is_refused() -> None:
    body = problem(422, "insufficient_history", "60 bars are first public on 2022-04-06", earliest_usable_date="x")
    record = record_from_response(JOB, 422, body)
    assert record.status == "refused"
    assert record.reason == "insufficient_history: 60 bars are first public on 2022-04-06"


def test_a_500_is_failed_with_its_status_code_and_detail() -> None:
    record = record_from_response(JOB, 500, problem(500, "all_experts_failed", "every selected expert failed"))
    assert (record.status, record.reason) == ("failed", "HTTP 500 all_experts_failed: every selected expert failed")


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (502, None, "HTTP 502 HTTP 502: the answer is not a problem detail"),
        (400, problem(400, "invalid_symbol", "not a symbol"), "HTTP 400 invalid_symbol: not a symbol"),
        (404, problem(404, "not_found", "no route"), "HTTP 404 not_found: no route"),
    ],
)
def test_other_answers_are_failed(status: int, body: object, reason: str) -> None:
    record = record_from_response(JOB, status, body)
    assert (record.status, record.reason) == ("failed", reason)


def client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_research_posts_symbol_experts_and_analysis_date() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer())

    async with client(handler) as http:
        record = await research(http, URL, JOB)
    assert record.status == "ok"
    assert seen[0].url == URL + "/api/v1/coordinator/research"
    assert seen[0].read() == (
        b'{"symbol":"600519.SH","experts":["technical_analyst","financial_auditor"],"analysis_date":"2024-06-30"}'
    )


async def test_research_retries_a_failed_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evaluation.runner.asyncio.sleep", _no_sleep)
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=answer())

    async with client(handler) as http:
        assert (await research(http, URL, JOB)).status == "ok"
    assert calls == 3


async def test_research_gives_up_after_three_failed_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evaluation.runner.asyncio.sleep", _no_sleep)

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("server disconnected", request=request)

    async with client(handler) as http:
        record = await research(http, URL, JOB)
    assert record.status == "failed"
    assert record.reason == "connection failed 3 times: RemoteProtocolError: server disconnected"


async def test_a_read_timeout_is_failed_at_once() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ReadTimeout("timed out", request=request)

    async with client(handler) as http:
        record = await research(http, URL, JOB)
    assert (record.status, record.reason, calls) == ("failed", "timeout: no answer in time (ReadTimeout)", 1)


async def _no_sleep(_seconds: float) -> None:
    return None


def test_plan_skips_grid_dates_before_a_symbols_first_bar_without_a_request() -> None:
    configurations = {"policy": ("technical_analyst", "macro_intelligence"), "technical_only": ("technical_analyst",)}
    days = [date(2021, 12, 31), date(2022, 1, 31), date(2022, 2, 28)]
    jobs, skipped = plan_jobs(configurations, ["600519.SH", "AAPL"], days, {"600519.SH": date(2022, 1, 4)})
    assert [(r.configuration, r.symbol, r.analysis_date, r.status) for r in skipped] == [
        ("policy", "600519.SH", date(2021, 12, 31), "refused"),
        ("technical_only", "600519.SH", date(2021, 12, 31), "refused"),
    ]
    assert skipped[0].reason == "before the first bar (2022-01-04)"
    assert len(jobs) == 2 * 2 + 2 * 3  # AAPL has no known first bar: every date is asked
    assert jobs[0] == Job("policy", ("technical_analyst", "macro_intelligence"), "600519.SH", date(2022, 1, 31))
    assert jobs[1].configuration == "technical_only"
