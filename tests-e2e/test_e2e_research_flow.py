"""The research flow over real processes: the four services started as ``uvicorn --factory`` on free loopback
ports (offline snapshot, rules engines, SQLite session store), driven over HTTP as a user would.

One stack for the module: each test posts its own research and reads only its own sessions (history
assertions filter by a symbol or by the session ids they created), so the tests do not interfere.
Scenario names in the docstrings are the specs' (coordinator-research-orchestration, coordinator-retry).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import (
    ALL_EXPERTS,
    DEBATE_KEYS,
    DEBATE_RUN,
    EXPERT_PATH,
    JUDGE_VERDICT,
    RESEARCH,
    RESPONSE_KEYS,
    SESSIONS,
    VERDICT_KEYS,
    errors,
    expect,
    expect_problem,
    expert_requests,
    is_uuid,
    retry_path,
    statuses,
)
from test_deploy_gateway import needs_nginx, running_nginx

from coordinator.infrastructure.adapters.judge_gateway_adapter import evidence_horizon
from service_kit.stack.launcher import Stack, running_stack
from shared_contracts.debate import DebateOutcome

pytestmark = pytest.mark.e2e

ANALYSIS_DATE = "2025-09-30"  # the snapshot's last bar for the A-share symbols
FULL_OPTIONS = {"technical_analyst": {"analysis_date": ANALYSIS_DATE}, "financial_auditor": {"limit": 5}}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir: Path = tmp_path_factory.mktemp("e2e-flow")
    with running_stack(workdir, common_env={"LOG_JSON": "true"}) as running:
        yield running


@pytest.fixture(scope="module")
def coordinator(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack["coordinator"].url, timeout=60) as client:
        yield client


def _research(client: httpx.Client, status: int = 200, **body: Any) -> dict[str, Any]:
    result: dict[str, Any] = expect(client.post(RESEARCH, json=body), status)
    return result


def _expected_action(debate: dict[str, Any]) -> str:
    """The judge's rules policy (services/judge/README.md): with the stock's standing (``score``), the debate's
    direction (the universe's top or bottom fifth) is the action; without it, BUY/SELL only on a directional
    call at ≥ 0.60."""
    if "score" in debate:
        return {"BULLISH": "BUY", "BEARISH": "SELL"}.get(debate["direction"], "HOLD")
    if debate["confidence"] >= 0.60 and debate["direction"] in ("BULLISH", "BEARISH"):
        return "BUY" if debate["direction"] == "BULLISH" else "SELL"
    return "HOLD"


# ------------------------------------------------------------------------------------- full research


def test_full_research_for_a_snapshot_symbol_runs_five_experts_debate_and_judge(
    coordinator: httpx.Client, stack: Stack
) -> None:
    """HTTP 接口可正常调用 / 指定全部五个专家 / 全部成功时 overall_status 为 completed / 响应体包含 debate_outcome /
    响应体包含 verdict / 首次请求响应包含 retry_count 为 0 / 响应体包含 session_id — across four processes."""
    before = expert_requests(stack["research"].url)
    response = coordinator.post(
        RESEARCH,
        json={"symbol": "600519.SH", "experts": ALL_EXPERTS, "options": FULL_OPTIONS},
        headers={"X-Request-ID": "e2e-full-600519"},
    )
    body = expect(response, 200)

    assert set(body) == RESPONSE_KEYS
    assert response.headers["x-request-id"] == "e2e-full-600519"
    assert (body["symbol"], body["overall_status"], body["retry_count"]) == ("600519.SH", "completed", 0)
    assert is_uuid(body["session_id"])
    assert list(body["expert_results"]) == ALL_EXPERTS
    for expert, item in body["expert_results"].items():
        assert item["status"] == "success", (expert, item)
        assert item["error"] is None
        data = item["data"]
        assert data["symbol"] == "600519.SH"
        assert data["data_source"] == "offline-snapshot"
        assert data["engine"] == {"kind": "rules", "model": None, "fallback_reason": None}
    ta = body["expert_results"]["technical_analyst"]["data"]
    assert ta["as_of"] == ANALYSIS_DATE
    assert ta["signal"] in {"BULLISH", "BEARISH", "NEUTRAL"}
    assert 0 <= ta["confidence"] <= 1
    assert body["expert_results"]["catalyst_detective"]["data"]["result"]["catalyst_assessment"] in {
        "POSITIVE",
        "NEUTRAL",
        "NEGATIVE",
    }
    assert len(body["expert_results"]["financial_auditor"]["data"]["financial_indicators"]["periods"]) <= 5

    debate, verdict = body["debate_outcome"], body["verdict"]
    assert set(debate) >= DEBATE_KEYS
    assert debate["engine"]["kind"] == "rules"
    assert set(verdict) >= VERDICT_KEYS
    assert verdict["symbol"] == "600519.SH"
    assert verdict["action"] == _expected_action(debate)  # the judge read the debate the coordinator sent
    assert 0 <= verdict["position_percent"] <= 30
    # The coordinator gave the judge the technical analyst's close: the levels are absolute prices too.
    assert verdict["stop_loss"]["price"] is not None
    assert verdict["stop_loss"]["price"] < ta["technical_indicators"]["close"] < verdict["take_profit"]["price"]

    # Only the five experts were called, each once, all answered 2xx.
    after = expert_requests(stack["research"].url)
    assert after["2xx"] - before["2xx"] == 5
    assert after["4xx"] == before["4xx"]

    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert (stored["status"], stored["request_id"]) == ("completed", "e2e-full-600519")
    assert stored["request"]["options"] == {e: FULL_OPTIONS.get(e, {}) for e in ALL_EXPERTS}
    assert {e: o["data"] for e, o in stored["expert_results"].items()} == {
        e: item["data"] for e, item in body["expert_results"].items()
    }
    assert stored["debate_outcome"] == debate
    assert stored["verdict"] == verdict
    assert (stored["debate"]["status"], stored["judge"]["status"]) == ("success", "success")


def test_the_specs_example_request_runs_only_the_two_experts_then_debate_and_judge(
    coordinator: httpx.Client, stack: Stack
) -> None:
    """请求含完整字段时正确解析 / 仅调用指定的专家: the spec's own example body."""
    before = expert_requests(stack["research"].url)
    body = _research(
        coordinator,
        symbol="000001.SZ",
        experts=["technical_analyst", "macro_intelligence"],
        options={"technical_analyst": {"analysis_date": "2026-02-13"}},
    )

    assert statuses(body) == {"technical_analyst": "success", "macro_intelligence": "success"}
    assert body["overall_status"] == "completed"
    # 2026-02-13 is after the snapshot's last bar: the last trading day on or before it is used.
    assert body["expert_results"]["technical_analyst"]["data"]["as_of"] <= "2026-02-13"
    assert body["debate_outcome"] is not None
    assert body["verdict"] is not None
    assert expert_requests(stack["research"].url)["2xx"] - before["2xx"] == 2


def test_missing_options_are_resolved_to_the_defaults_when_the_request_arrives(coordinator: httpx.Client) -> None:
    """options 缺失时使用默认值: analysis_date = today, limit = 5, stored with the session."""
    body = _research(coordinator, symbol="600519.SH", experts=["technical_analyst", "financial_auditor"])

    assert body["overall_status"] == "completed"
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    today = {dt.date.today().isoformat(), dt.datetime.now(dt.UTC).date().isoformat()}
    assert stored["request"]["options"]["technical_analyst"]["analysis_date"] in today
    assert stored["request"]["options"]["financial_auditor"] == {"limit": 5}
    assert len(body["expert_results"]["financial_auditor"]["data"]["financial_indicators"]["periods"]) == 5


def test_skip_debate_leaves_debate_and_verdict_null_and_the_rest_intact(coordinator: httpx.Client) -> None:
    """skip_debate 为 true 时跳过辩论和裁决."""
    body = _research(
        coordinator, symbol="300750.SZ", experts=["technical_analyst", "valuation_modeler"], skip_debate=True
    )

    assert (body["debate_outcome"], body["verdict"]) == (None, None)
    assert body["overall_status"] == "completed"
    assert statuses(body) == {"technical_analyst": "success", "valuation_modeler": "success"}
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["request"]["skip_debate"] is True
    assert (stored["debate"]["status"], stored["judge"]["status"]) == ("skipped", "skipped")


# ------------------------------------------------------------------------------------- 400s


BAD_REQUESTS: list[tuple[str, Any, str]] = [
    ("symbol missing", {"experts": ["technical_analyst"]}, "symbol_required"),
    ("symbol blank", {"symbol": "  ", "experts": ["technical_analyst"]}, "symbol_required"),
    ("symbol null", {"symbol": None, "experts": ["technical_analyst"]}, "symbol_required"),
    ("experts empty", {"symbol": "600519.SH", "experts": []}, "experts_empty"),
    ("unknown expert", {"symbol": "600519.SH", "experts": ["unknown_expert"]}, "unknown_expert"),
    ("duplicate expert", {"symbol": "600519.SH", "experts": ["macro_intelligence"] * 2}, "duplicate_expert"),
    (
        "options for an expert not requested",
        {"symbol": "600519.SH", "experts": ["macro_intelligence"], "options": {"financial_auditor": {"limit": 3}}},
        "invalid_options",
    ),
    (
        "malformed analysis_date",
        {
            "symbol": "600519.SH",
            "experts": ["technical_analyst"],
            "options": {"technical_analyst": {"analysis_date": "13/02/2026"}},
        },
        "invalid_options",
    ),
    (
        "limit out of range",
        {"symbol": "600519.SH", "experts": ["financial_auditor"], "options": {"financial_auditor": {"limit": 21}}},
        "invalid_options",
    ),
    (
        "unknown option",
        {"symbol": "600519.SH", "experts": ["macro_intelligence"], "options": {"macro_intelligence": {"region": "CN"}}},
        "invalid_options",
    ),
    ("experts not a list", {"symbol": "600519.SH", "experts": "technical_analyst"}, "invalid_request"),
    (
        "unknown top-level field",
        {"symbol": "600519.SH", "experts": ["macro_intelligence"], "debug": True},
        "invalid_request",
    ),
]


@pytest.mark.parametrize(("case", "payload", "code"), BAD_REQUESTS, ids=[c[0] for c in BAD_REQUESTS])
def test_client_mistakes_are_400_with_a_distinct_code_and_nothing_runs(
    coordinator: httpx.Client, stack: Stack, case: str, payload: Any, code: str
) -> None:
    """symbol 缺失时返回 400 / experts 为空时返回 400 / experts 含非法类型时返回 400, plus the documented extras."""
    sessions_before = expect(coordinator.get(SESSIONS), 200)["total"]
    calls_before = expert_requests(stack["research"].url)

    expect_problem(coordinator.post(RESEARCH, json=payload), 400, code)

    assert expect(coordinator.get(SESSIONS), 200)["total"] == sessions_before, f"{case}: a session was stored"
    assert expert_requests(stack["research"].url) == calls_before, f"{case}: an expert was called"


def test_a_body_that_is_not_json_is_400_malformed_json(coordinator: httpx.Client) -> None:
    response = coordinator.post(
        RESEARCH, content=b'{"symbol": "600519.SH", "experts": [', headers={"content-type": "application/json"}
    )
    expect_problem(response, 400, "malformed_json")


# ------------------------------------------------------------------------------------- partial, failed


def test_a_symbol_the_snapshot_covers_in_part_is_partial_with_data_and_errors(coordinator: httpx.Client) -> None:
    """部分成功时 overall_status 为 partial / 一个专家失败不影响其他专家: AAPL has bars only offline."""
    body = _research(coordinator, symbol="AAPL", experts=ALL_EXPERTS)

    assert body["overall_status"] == "partial"
    assert statuses(body) == {
        "technical_analyst": "success",
        "financial_auditor": "failed",
        "valuation_modeler": "failed",
        "macro_intelligence": "failed",
        "catalyst_detective": "success",
    }
    for expert, error in errors(body).items():
        assert error.startswith("research 404 data_unavailable:"), (expert, error)
        assert body["expert_results"][expert]["data"] is None
    assert body["expert_results"]["technical_analyst"]["data"]["symbol"] == "AAPL"
    # The debate ran on the two successful experts; the judge on its outcome.
    assert body["debate_outcome"] is not None
    assert body["verdict"] is not None
    assert body["verdict"]["action"] == _expected_action(body["debate_outcome"])


def test_a_bank_without_valuation_data_fails_only_the_valuation_modeler(coordinator: httpx.Client) -> None:
    body = _research(coordinator, symbol="000001.SZ", experts=ALL_EXPERTS, options=FULL_OPTIONS)

    assert body["overall_status"] == "partial"
    assert errors(body).keys() == {"valuation_modeler"}
    assert "404 data_unavailable" in errors(body)["valuation_modeler"]
    assert all(body["expert_results"][e]["data"] for e in ALL_EXPERTS if e != "valuation_modeler")


def test_every_expert_failing_for_an_unknown_symbol_is_404_with_every_experts_error_and_no_debate(
    coordinator: httpx.Client, stack: Stack
) -> None:
    """全部专家失败: a ticker the snapshot does not have. Every expert failed for the caller's mistake, so the
    answer is that mistake (404 symbol_not_found) with the full research body, not a 500 (research down is the
    500: test_e2e_faults.py)."""
    response = coordinator.post(
        RESEARCH, json={"symbol": "ZZZZ", "experts": ["technical_analyst", "macro_intelligence"]}
    )

    body = expect_problem(response, 404, "symbol_not_found")
    assert body["overall_status"] == "failed"
    assert (body["debate_outcome"], body["verdict"]) == (None, None)
    assert statuses(body) == {"technical_analyst": "failed", "macro_intelligence": "failed"}
    for error in errors(body).values():
        assert error.startswith("research 404 symbol_not_found:")
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["status"] == "failed"
    assert stored["debate"]["status"] == "skipped"


# ------------------------------------------------------------------------------------- retry, history


def test_a_partial_session_whose_failures_are_refusals_for_good_is_not_retried(
    coordinator: httpx.Client, stack: Stack
) -> None:
    """The snapshot has no financials for AAPL: those experts are refused with a 404, which asking again cannot
    change. The session read says they are not retryable, and a retry is 409 not_retryable naming them, without
    asking the research service anything (its request counter says so). Retries that run: test_e2e_llm_path.py."""
    source = _research(coordinator, symbol="AAPL", experts=ALL_EXPERTS)
    assert source["overall_status"] == "partial"
    stored = expect(coordinator.get(f"{SESSIONS}/{source['session_id']}"), 200)
    before = expert_requests(stack["research"].url)

    refused = expect_problem(coordinator.post(retry_path(source["session_id"])), 409, "not_retryable")

    assert expert_requests(stack["research"].url) == before
    assert refused["permanent_failures"].keys() == errors(source).keys()
    for expert in errors(source):
        assert stored["expert_results"][expert]["retryable"] is False
        assert stored["expert_results"][expert]["failure"]["status"] == 404
    assert stored["stages_to_retry"] == []


def test_retry_of_an_unknown_or_completed_session_is_refused(coordinator: httpx.Client) -> None:
    expect_problem(coordinator.post(retry_path("00000000-0000-4000-8000-000000000000")), 404, "session_not_found")
    done = _research(coordinator, symbol="601318.SH", experts=["macro_intelligence"])
    assert list(done["expert_results"]) == ["macro_intelligence"]  # 指定单个专家: that one only
    assert done["overall_status"] == "completed"
    assert done["verdict"] is not None
    expect_problem(coordinator.post(retry_path(done["session_id"])), 409, "not_retryable")


def test_history_lists_sessions_newest_first_filtered_and_paginated(coordinator: httpx.Client) -> None:
    created = [_research(coordinator, symbol="MSFT", experts=["technical_analyst"], skip_debate=True) for _ in range(3)]
    created_ids = [b["session_id"] for b in created]

    page = expect(coordinator.get(SESSIONS, params={"symbol": "msft"}), 200)
    assert page["total"] == 3
    assert [s["session_id"] for s in page["items"]] == created_ids[::-1]
    assert all(s["symbol"] == "MSFT" and s["status"] == "completed" for s in page["items"])

    second = expect(coordinator.get(SESSIONS, params={"symbol": "MSFT", "limit": 1, "offset": 1}), 200)
    assert [s["session_id"] for s in second["items"]] == [created_ids[1]]
    assert (second["total"], second["limit"], second["offset"]) == (3, 1, 1)
    assert expect(coordinator.get(SESSIONS, params={"symbol": "MSFT", "status": "failed"}), 200)["total"] == 0

    detail = expect(coordinator.get(f"{SESSIONS}/{created_ids[0]}"), 200)
    outcome = detail["expert_results"]["technical_analyst"]
    assert outcome["status"] == "success"
    assert outcome["attempts"] == 1
    assert outcome["duration_ms"] >= 0
    assert outcome["data"] == created[0]["expert_results"]["technical_analyst"]["data"]
    expect_problem(coordinator.get(f"{SESSIONS}/00000000-0000-4000-8000-000000000000"), 404, "session_not_found")


# ------------------------------------------------------------------------------------- direct calls


def test_debate_and_judge_answer_direct_calls_with_pasted_research_results(
    coordinator: httpx.Client, stack: Stack
) -> None:
    """Every service is useful on its own: curl the research experts (each asked for the research's one
    analysis date, as the coordinator asks them), paste their results into the debate, the debate's outcome
    into the judge — the same answers the coordinator composed."""
    via_coordinator = _research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS, options=FULL_OPTIONS)
    assert via_coordinator["analysis_date"] == ANALYSIS_DATE  # the technical option dates the whole research
    with httpx.Client(timeout=30) as client:
        raw: dict[str, Any] = {}
        for expert in ALL_EXPERTS:
            options = FULL_OPTIONS.get(expert)
            payload = {
                "symbol": "600519.SH",
                "analysis_date": ANALYSIS_DATE,
                **({"options": options} if options else {}),
            }
            raw[expert] = expect(
                client.post(stack["research"].url + EXPERT_PATH.format(expert=expert), json=payload), 200
            )
        assert raw == {e: item["data"] for e, item in via_coordinator["expert_results"].items()}

        debate = expect(
            client.post(stack["debate"].url + DEBATE_RUN, json={"symbol": "600519.SH", "expert_results": raw}), 200
        )
        assert debate == via_coordinator["debate_outcome"]
        # The coordinator's envelopes are accepted as well; failed entries are skipped.
        enveloped = {e: {"status": "success", "data": d} for e, d in raw.items()}
        enveloped["valuation_modeler"] = {"status": "failed", "data": None, "error": "research 404 ..."}
        fewer = expect(
            client.post(stack["debate"].url + DEBATE_RUN, json={"symbol": "600519.SH", "expert_results": enveloped}),
            200,
        )
        assert "valuation_modeler" not in str(fewer["bull_case"]) + str(fewer["bear_case"])

        ta = raw["technical_analyst"]
        judge_input = {
            "symbol": "600519.SH",
            "direction": debate["direction"],
            "confidence": debate["confidence"],
            "bull_thesis": debate["bull_case"]["core_thesis"],
            "bear_thesis": debate["bear_case"]["core_thesis"],
            "risk_factors": [row["risk"] for row in debate["risk_matrix"]],
            "key_disagreements": debate["key_disagreements"],
            "conflict_resolution": debate["conflict_resolution"],
            "reference_price": ta["technical_indicators"]["close"],
            "reference_date": ta["as_of"],
            "key_levels": {
                "support": ta["key_technical_levels"]["support"],
                "resistance": ta["key_technical_levels"]["resistance"],
            },
            "atr": ta["technical_indicators"]["atr14"],  # stops in units of volatility
            "realised_volatility_pct": ta["technical_indicators"]["volatility_60d_pct"],
        }
        value_range = raw["valuation_modeler"]["estimated_intrinsic_value_range"]
        if value_range.get("low"):
            judge_input |= {"intrinsic_value_low": value_range["low"], "intrinsic_value_high": value_range["high"]}
        if horizon := evidence_horizon(DebateOutcome.model_validate(debate)):
            judge_input["evidence_horizon"] = horizon
        # the stock's standing (the debate's) and the market view (the macro expert's), as the coordinator sends
        judge_input |= {
            name: debate[name]
            for name in ("score", "universe_rank", "standing_coverage", "contributions")
            if name in debate
        }
        judge_input["market_view"] = raw["macro_intelligence"]["macro_environment"]
        verdict = expect(client.post(stack["judge"].url + JUDGE_VERDICT, json=judge_input), 200)
        assert verdict == via_coordinator["verdict"]

        # Their own 400s, as problem details.
        expect_problem(
            client.post(stack["debate"].url + DEBATE_RUN, json={"symbol": "600519.SH", "expert_results": {}}),
            400,
            "expert_results_empty",
        )
        expect_problem(
            client.post(stack["judge"].url + JUDGE_VERDICT, json={**judge_input, "supporting_arguments": []}),
            400,
            "invalid_request",
        )


def test_the_judge_readme_example_gives_the_documented_verdict(stack: Stack) -> None:
    """services/judge/README.md: BULLISH 0.80, 2 risks, reference 1500, ATR 30 (2 %), a SHORT_TERM trade → stop 4 %
    (2 ATR), risk 1 × 0.6 × 0.8 = 0.48 %, position 0.48 / 4 × 100 = 12 %."""
    verdict = expect(
        httpx.post(
            stack["judge"].url + JUDGE_VERDICT,
            json={
                "symbol": "600519.SH",
                "direction": "BULLISH",
                "confidence": 0.80,
                "bull_thesis": "估值低于内在价值",
                "bear_thesis": "行业景气度下行",
                "risk_factors": ["需求放缓", "政策风险"],
                "key_disagreements": ["估值是否合理"],
                "conflict_resolution": "多头略占优",
                "reference_price": 1500,
                "atr": 30,
                "evidence_horizon": "SHORT_TERM",
            },
            timeout=30,
        ),
        200,
    )
    assert (verdict["action"], verdict["position_percent"]) == ("BUY", 12.0)
    assert verdict["stop_loss"]["percent_from_entry"] == -4.0
    assert verdict["engine"]["kind"] == "rules"
    assert verdict["stop_loss"]["price"] < 1500 < verdict["take_profit"]["price"]


# ------------------------------------------------------------------------------------- API gateway


@pytest.fixture
def gateway(stack: Stack, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The real nginx with deploy/nginx/nginx.conf, rendered for the coordinator's real port."""
    with running_nginx(tmp_path, stack["coordinator"].port) as running:
        yield running


@needs_nginx
def test_the_same_research_through_the_nginx_gateway(gateway: tuple[str, Path], coordinator: httpx.Client) -> None:
    url, access_log = gateway
    with httpx.Client(base_url=url, timeout=60) as client:
        assert expect(client.get("/readyz"), 200)["status"] == "ready"  # the coordinator's readiness, proxied

        response = client.post(
            RESEARCH,
            json={"symbol": "600519.SH", "experts": ALL_EXPERTS, "options": FULL_OPTIONS},
            headers={"X-Request-ID": "e2e-through-gateway"},
        )
        body = expect(response, 200)
        assert response.headers.get_list("x-request-id") == ["e2e-through-gateway"]
        assert body["overall_status"] == "completed"
        assert set(body) == RESPONSE_KEYS
        assert body["verdict"] is not None
        direct = _research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS, options=FULL_OPTIONS)
        for key in ("expert_results", "debate_outcome", "verdict"):
            assert body[key] == direct[key], key  # the gateway changes nothing in the answer

        # The request id reached the coordinator (stored with the session) and the access log.
        stored = expect(client.get(f"{SESSIONS}/{body['session_id']}"), 200)
        assert stored["request_id"] == "e2e-through-gateway"
        time.sleep(0.2)
        entries = [json.loads(line) for line in access_log.read_text().splitlines()]
        posted = [e for e in entries if e["method"] == "POST" and e["uri"] == RESEARCH]
        assert posted[-1]["request_id"] == "e2e-through-gateway"
        assert (posted[-1]["status"], posted[-1]["upstream_status"]) == (200, "200")

        # Without an id the gateway generates one, and the coordinator uses that one.
        generated = client.post(RESEARCH, json={"symbol": "600519.SH", "experts": []})
        problem = expect_problem(generated, 400, "experts_empty")
        request_id = generated.headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
        assert problem["request_id"] == request_id
