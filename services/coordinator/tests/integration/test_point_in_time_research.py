"""Point-in-time research through the real app: one analysis date per research (resolved when the request
arrives, sent to every expert, stored, re-used by a retry), and every expert failing for the caller's
mistake answered as that mistake (404 symbol_not_found, 422 insufficient_history), not as a 500."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    InMemorySessionRepository,
    debate_outcome,
    fake_container,
    gateway_error,
    sample_result,
    serve,
    verdict,
)
from coordinator_persistence_fakes import (
    RESEARCH,
    SESSIONS,
    AppUnderTest,
    coordinator_app,
    make_session,
    retry_path,
    sqlite_url,
)

from coordinator.domain.exceptions import PeerResponseError
from coordinator.domain.model.session import ExpertOutcome
from coordinator.domain.ports.research_expert_gateway import analysis_date_of

TA, FA, VM, MI = "technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence"
PEER_RESEARCH, PEER_DEBATE, PEER_JUDGE = "http://research.test", "http://debate.test", "http://judge.test"


def not_found(symbol: str = "ZZZZ") -> PeerResponseError:
    return PeerResponseError("research", 404, "symbol_not_found", f"no data for {symbol}")


def too_early(earliest: str | None = None) -> PeerResponseError:
    extensions = {"earliest_usable_date": earliest} if earliest else None
    detail = "too little data public on 1990-01-02"
    return PeerResponseError("research", 422, "insufficient_history", detail, extensions=extensions)


async def post(body: Any, **fakes: Any) -> httpx.Response:
    async with serve(fake_container(**fakes)) as client:
        return await client.post(RESEARCH, json=body)


# --- one analysis date per research ----------------------------------------------------------------


async def test_the_top_level_date_reaches_every_expert_the_response_and_the_session() -> None:
    gateway, sessions = FakeExpertGateway(), InMemorySessionRepository()
    response = await post(
        {"symbol": "600519.SH", "experts": [TA, VM, MI], "analysis_date": "2025-09-30"},
        gateway=gateway,
        sessions=sessions,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["analysis_date"] == "2025-09-30"
    assert {expert: analysis_date_of(options) for expert, _, options in gateway.calls} == dict.fromkeys(
        [TA, VM, MI], date(2025, 9, 30)
    )
    assert {expert: dict(options or {}) for expert, _, options in gateway.calls} == {
        TA: {"analysis_date": "2025-09-30"},  # the spec's option repeats the research's date
        VM: {},
        MI: {},
    }
    stored = sessions.sessions[body["session_id"]]
    assert stored.analysis_date == date(2025, 9, 30)
    assert stored.options[TA] == {"analysis_date": "2025-09-30"}


async def test_the_technical_option_dates_every_expert_without_a_top_level_date() -> None:
    gateway = FakeExpertGateway()
    body = {"symbol": "600519.SH", "experts": [TA, FA], "options": {TA: {"analysis_date": "2024-06-28"}}}
    response = await post(body, gateway=gateway)
    assert response.json()["analysis_date"] == "2024-06-28"
    assert {expert: analysis_date_of(options) for expert, _, options in gateway.calls} == {
        TA: date(2024, 6, 28),
        FA: date(2024, 6, 28),
    }


async def test_without_any_date_the_research_is_dated_the_day_it_arrives() -> None:
    gateway = FakeExpertGateway()
    response = await post({"symbol": "600519.SH", "experts": [MI]}, gateway=gateway)
    assert response.json()["analysis_date"] == date.today().isoformat()
    [(_, _, options)] = gateway.calls
    assert analysis_date_of(options) == date.today()


async def test_two_different_dates_are_400_conflicting_analysis_date() -> None:
    gateway = FakeExpertGateway()
    response = await post(
        {
            "symbol": "600519.SH",
            "experts": [TA],
            "analysis_date": "2025-09-30",
            "options": {TA: {"analysis_date": "2025-06-30"}},
        },
        gateway=gateway,
    )
    assert response.status_code == 400
    assert response.json()["code"] == "conflicting_analysis_date"
    assert gateway.calls == []


@contextlib.contextmanager
def peers_mocked() -> Iterator[respx.MockRouter]:
    """respx at the httpx client level (the container's client runs on the aiohttp transport)."""
    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.route(host="t").pass_through()
        yield router


def dated(expert: str, as_of: str) -> dict[str, Any]:
    return sample_result(expert) | {"as_of": as_of, "analysis_date": as_of}


async def test_over_http_every_expert_is_asked_for_the_date_and_the_verdict_is_priced_on_it() -> None:
    with peers_mocked() as router:
        experts = {
            e: router.post(f"{PEER_RESEARCH}/api/v1/research/experts/{e}").mock(
                return_value=httpx.Response(200, json=dated(e, "2025-09-30"))
            )
            for e in (TA, VM)
        }
        router.post(f"{PEER_DEBATE}/api/v1/debate/run").mock(return_value=httpx.Response(200, json=debate_outcome()))
        judge = router.post(f"{PEER_JUDGE}/api/v1/judge/verdict").mock(return_value=httpx.Response(200, json=verdict()))
        async with serve() as client:
            response = await client.post(
                RESEARCH, json={"symbol": "600519.SH", "experts": [TA, VM], "analysis_date": "2025-09-30"}
            )
    assert response.status_code == 200, response.text
    sent = {e: json.loads(route.calls.last.request.content) for e, route in experts.items()}
    asked = {"symbol": "600519.SH", "analysis_date": "2025-09-30"}  # no language: REPORT_LANGUAGE is unset here
    assert sent == {TA: {**asked, "options": {"analysis_date": "2025-09-30"}}, VM: {**asked, "options": {}}}
    judged = json.loads(judge.calls.last.request.content)
    assert (judged["reference_price"], judged["reference_date"]) == (1580.5, "2025-09-30")
    assert "language" not in judged


# --- every expert failing for the caller's mistake ---------------------------------------------------


async def test_every_expert_without_data_for_the_symbol_is_404_with_the_full_body() -> None:
    sessions = InMemorySessionRepository()
    gateway = FakeExpertGateway({TA: not_found(), MI: not_found()})
    response = await post({"symbol": "ZZZZ", "experts": [TA, MI]}, gateway=gateway, sessions=sessions)

    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["code"], body["status"], body["title"]) == ("symbol_not_found", 404, "Symbol not found")
    assert (body["overall_status"], body["debate_outcome"], body["verdict"]) == ("failed", None, None)
    assert {e: v["error"] for e, v in body["expert_results"].items()} == {
        TA: "research 404 symbol_not_found: no data for ZZZZ",
        MI: "research 404 symbol_not_found: no data for ZZZZ",
    }
    assert "earliest_usable_date" not in body
    stored = sessions.sessions[body["session_id"]]
    assert stored.status == "failed"
    assert stored.expert_outcomes[TA].error == "research 404 symbol_not_found: no data for ZZZZ"


async def test_every_expert_short_of_history_is_422_with_the_earliest_usable_date() -> None:
    gateway = FakeExpertGateway({TA: too_early("2001-12-20"), VM: too_early("2001-03-30"), MI: too_early()})
    response = await post(
        {"symbol": "600519.SH", "experts": [TA, VM, MI], "analysis_date": "1990-01-02"}, gateway=gateway
    )

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["title"]) == ("insufficient_history", "Insufficient history")
    assert body["earliest_usable_date"] == "2001-03-30"
    assert body["analysis_date"] == "1990-01-02"
    assert body["overall_status"] == "failed"
    assert set(body["expert_results"]) == {TA, VM, MI}


async def test_insufficient_history_without_any_known_date_omits_it() -> None:
    response = await post({"symbol": "600519.SH", "experts": [MI]}, gateway=FakeExpertGateway({MI: too_early()}))
    assert response.status_code == 422
    assert "earliest_usable_date" not in response.json()


@pytest.mark.parametrize(
    "failures",
    [
        {TA: not_found(), MI: gateway_error()},  # one server-side
        {TA: not_found(), MI: PeerResponseError("research", 504, "data_provider_timeout", "slow")},
    ],
)
async def test_mixed_or_server_side_reasons_stay_500_all_experts_failed(failures: dict[str, Exception]) -> None:
    response = await post({"symbol": "ZZZZ", "experts": [TA, MI]}, gateway=FakeExpertGateway(failures))
    assert response.status_code == 500
    assert response.json()["code"] == "all_experts_failed"
    assert response.json()["overall_status"] == "failed"


async def test_client_reasons_that_differ_are_still_the_callers_mistake() -> None:
    """A bars-only symbol before its first bar: some experts are too early, the others have no such data."""
    failures = {TA: too_early("2001-12-20"), MI: not_found()}
    response = await post({"symbol": "ZZZZ", "experts": [TA, MI]}, gateway=FakeExpertGateway(failures))
    assert (response.status_code, response.json()["code"]) == (422, "insufficient_history")
    assert response.json()["earliest_usable_date"] == "2001-12-20"


async def test_over_http_the_peers_problem_code_decides_404_and_422() -> None:
    def problem(status: int, code: str, **extra: Any) -> httpx.Response:
        body = {"type": "about:blank", "title": "x", "status": status, "detail": "no", "code": code, **extra}
        return httpx.Response(status, json=body, headers={"content-type": "application/problem+json"})

    answers = {
        "symbol_not_found": (problem(404, "symbol_not_found"), problem(404, "symbol_not_found")),
        "insufficient_history": (
            problem(422, "insufficient_history", earliest_usable_date="2003-01-06"),
            problem(422, "insufficient_history", earliest_usable_date="2002-11-29"),
        ),
    }
    statuses = {}
    for case, (technical, macro) in answers.items():
        with peers_mocked() as router:
            router.post(f"{PEER_RESEARCH}/api/v1/research/experts/{TA}").mock(return_value=technical)
            router.post(f"{PEER_RESEARCH}/api/v1/research/experts/{MI}").mock(return_value=macro)
            async with serve() as client:
                response = await client.post(RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI]})
        body = response.json()
        statuses[case] = (response.status_code, body["code"], body.get("earliest_usable_date"))
        assert body["expert_results"][TA]["error"].startswith(f"research {technical.status_code} {case}: ")
    assert statuses == {
        "symbol_not_found": (404, "symbol_not_found", None),
        "insufficient_history": (422, "insufficient_history", "2002-11-29"),
    }


# --- retry ----------------------------------------------------------------------------------------


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[AppUnderTest]:
    async with coordinator_app(
        sqlite_url(tmp_path), research=FakeExpertGateway(), debate=FakeDebateGateway(), judge=FakeJudgeGateway()
    ) as running:
        yield running


def _research_of(app: AppUnderTest) -> FakeExpertGateway:
    gateway = app.research
    assert isinstance(gateway, FakeExpertGateway)
    return gateway


async def _stored_failed(app: AppUnderTest, experts: list[str], **kwargs: Any) -> str:
    source = make_session(
        symbol="600519.SH",
        experts=experts,
        status="failed",
        outcomes={e: ExpertOutcome("failed", error="research 503 upstream_down: boom") for e in experts},
        **kwargs,
    )
    await app.sessions.create(source)
    return source.session_id


async def test_a_retry_reruns_with_the_source_sessions_date(app: AppUnderTest) -> None:
    source_id = await _stored_failed(app, [VM, MI], options={VM: {}, MI: {}}, analysis_date=date(2025, 9, 30))

    response = await app.client.post(retry_path(source_id))

    assert response.status_code == 200, response.text
    assert response.json()["analysis_date"] == "2025-09-30"
    calls = _research_of(app).calls
    assert {expert: analysis_date_of(options) for expert, _, options in calls} == dict.fromkeys(
        [VM, MI], date(2025, 9, 30)
    )
    detail = (await app.client.get(f"{SESSIONS}/{response.json()['session_id']}")).json()
    assert detail["analysis_date"] == "2025-09-30"


async def test_a_retry_of_a_session_stored_without_a_date_uses_its_technical_option_else_today(
    app: AppUnderTest,
) -> None:
    with_option = await _stored_failed(app, [TA], options={TA: {"analysis_date": "2025-01-02"}})
    without = await _stored_failed(app, [MI], options={MI: {}})

    first = (await app.client.post(retry_path(with_option))).json()
    second = (await app.client.post(retry_path(without))).json()

    assert (first["analysis_date"], second["analysis_date"]) == ("2025-01-02", date.today().isoformat())


async def test_a_retry_whose_experts_all_fail_for_an_unknown_symbol_is_404_with_the_new_session(
    app: AppUnderTest,
) -> None:
    source_id = await _stored_failed(app, [TA, MI], analysis_date=date(2025, 9, 30))
    _research_of(app).failures = {TA: not_found(), MI: not_found()}

    response = await app.client.post(retry_path(source_id))

    assert response.status_code == 404
    body = response.json()
    assert body["code"] == "symbol_not_found"
    assert body["retry_count"] == 1
    assert body["session_id"] != source_id
    stored = (await app.client.get(f"{SESSIONS}/{body['session_id']}")).json()
    assert (stored["status"], stored["retried_from"]) == ("failed", source_id)
