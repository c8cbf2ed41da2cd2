"""LLM usage and token budgets across the four services (issue 41), against the fake OpenAI-compatible server
reporting fixed token counts per role: the session's per-stage and total usage equal what the server counted; a
retry adds only its own calls; a budget that pays for the experts only stops the debate and the judge before any
of their model calls; ``GET /usage`` sums by day and model and shows a client only its own; the daily token quota
refuses a research (429 ``token_quota_exceeded``) on a second coordinator sharing the first one's Redis."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import ALL_EXPERTS, RESEARCH, SESSIONS, expect, expect_problem, retry_path

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import SERVICE_APPS, ServiceProcess, Stack, base_env, free_port, running_stack
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

MODEL = "fake-usage-model"
PRICES = {MODEL: {"input": 1.0, "output": 4.0}}
"""Per million tokens (LLM_PRICES)."""
SERVICE_KEY = new_key()
ADMIN_KEY = new_key()
RUN = uuid.uuid4().hex[:8]
CLIENTS = {name: new_key() for name in ("flow", "retry", "budget", "ledger", "other", "quota")}
"""One client per test (each its own usage, its own token counters in a shared Redis)."""
STAGE_OF_ROLE = {**{e: e for e in ALL_EXPERTS}, "bull_advocate": "debate", "bear_advocate": "debate"}
STAGE_OF_ROLE |= {"resolution": "debate", "judge": "judge"}


def client_id(name: str) -> str:
    return f"usage-{name}-{RUN}"


def _api_keys() -> str:
    entries = [f"{client_id(name)}={hash_key(key)}" for name, key in CLIENTS.items()]
    entries += [f"usage-admin-{RUN}={hash_key(ADMIN_KEY)}:admin", f"coordinator={hash_key(SERVICE_KEY)}:service"]
    return ",".join(entries)


def script() -> dict[str, Any]:
    """Every role answers well and reports its own fixed usage (role i: 1000·(i+1) in, 10·(i+1) out)."""
    base = replies.script()
    for i, rule in enumerate(base["rules"]):
        rule["usage"] = {"prompt_tokens": 1000 * (i + 1), "completion_tokens": 10 * (i + 1)}
    return base


def _redis_reachable() -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", 6379)) == 0


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("usage-llm"), script()) as fake:
        yield fake


def _secured(**extra: str) -> dict[str, str]:
    return {"AUTH_MODE": "api_key", "API_KEYS": _api_keys(), "RATE_LIMIT_WRITES": "1000/minute", **extra}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    llm = fake_llm.env(model=MODEL, REPORT_LANGUAGE="en")
    coordinator = {"SERVICE_API_KEY": SERVICE_KEY, "LLM_PRICES": json.dumps(PRICES), "HTTP_BACKOFF_SECONDS": "0.05"}
    per_service = {"research": llm, "debate": llm, "judge": llm, "coordinator": coordinator}
    workdir = tmp_path_factory.mktemp("usage-stack")
    with running_stack(workdir, common_env=_secured(), per_service_env=per_service) as running:
        yield running


def _client(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=120, headers={"Authorization": f"Bearer {key}"})


@pytest.fixture(autouse=True)
def fresh_script(fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(script())


def server_usage(fake: FakeLLM) -> dict[str, dict[str, int]]:
    """What the fake server counted, per stage: calls, input and output tokens."""
    stages: dict[str, dict[str, int]] = {}
    for call in fake.client.calls():
        counted = stages.setdefault(
            STAGE_OF_ROLE[call["rule"]], {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0}
        )
        counted["llm_calls"] += 1
        counted["input_tokens"] += call["prompt_tokens"]
        counted["output_tokens"] += call["completion_tokens"]
    return stages


def counts(usage: dict[str, Any]) -> dict[str, int]:
    return {k: usage[k] for k in ("llm_calls", "input_tokens", "output_tokens")}


def summed(stages: dict[str, dict[str, int]]) -> dict[str, int]:
    return {k: sum(s[k] for s in stages.values()) for k in ("llm_calls", "input_tokens", "output_tokens")}


def test_each_stage_and_the_total_carry_what_the_llm_server_counted(stack: Stack, fake_llm: FakeLLM) -> None:
    with _client(stack["coordinator"].url, CLIENTS["flow"]) as http:
        body = expect(http.post(RESEARCH, json={"symbol": "600519.SH", "experts": ALL_EXPERTS}), 200)
        detail = expect(http.get(f"{SESSIONS}/{body['session_id']}"), 200)

    counted = server_usage(fake_llm)
    assert set(counted) == {*ALL_EXPERTS, "debate", "judge"}  # every role called
    for usage in (body["usage"], detail["usage"]):
        assert {stage: counts(u) for stage, u in usage["stages"].items()} == counted
        assert counts(usage["total"]) == summed(counted) == counts(usage["new"])
        assert usage["total"]["estimated"] is False
        total = usage["total"]
        assert usage["cost"] == pytest.approx((total["input_tokens"] * 1.0 + total["output_tokens"] * 4.0) / 1e6)
    # Each result carries its own stage's usage.
    for expert in ALL_EXPERTS:
        assert counts(body["expert_results"][expert]["data"]["usage"]) == counted[expert]
    assert counts(body["debate_outcome"]["usage"]) == counted["debate"]
    assert counts(body["verdict"]["usage"]) == counted["judge"]


def test_usage_an_endpoint_does_not_report_is_estimated(stack: Stack, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(replies.with_role(script(), "technical_analyst", usage=False))
    with _client(stack["coordinator"].url, CLIENTS["flow"]) as http:
        body = expect(http.post(RESEARCH, json={"symbol": "600519.SH", "experts": ["technical_analyst"]}), 200)

    technical = body["usage"]["stages"]["technical_analyst"]
    assert technical["estimated"] is True
    assert technical["llm_calls"] == 1
    assert technical["input_tokens"] > 0
    assert technical["output_tokens"] > 0
    assert body["usage"]["total"]["estimated"] is True
    assert body["usage"]["stages"]["judge"]["estimated"] is False


def test_a_retry_adds_only_the_calls_it_made(stack: Stack, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(replies.fault("judge", 400, base=script()))  # refused: the judge stage fails
    with _client(stack["coordinator"].url, CLIENTS["retry"]) as http:
        first = expect(http.post(RESEARCH, json={"symbol": "600519.SH", "experts": ALL_EXPERTS}), 200)
        assert first["verdict"] is None
        before = server_usage(fake_llm)
        fake_llm.client.reset(script())
        retried = expect(http.post(retry_path(first["session_id"])), 200)

    made = server_usage(fake_llm)
    assert set(made) == {"judge"}  # the retry called the judge's model only
    usage = retried["usage"]
    assert sorted(usage["carried"]) == sorted([*ALL_EXPERTS, "debate"])
    assert counts(usage["new"]) == summed(made)
    carried = {stage: counts(u) for stage, u in usage["stages"].items() if stage in usage["carried"]}
    assert carried == {stage: c for stage, c in before.items() if stage != "judge"}
    assert counts(usage["total"]) == summed({**carried, "judge": made["judge"]})


def test_a_budget_for_the_experts_only_stops_debate_and_judge_before_any_model_call(
    stack: Stack, fake_llm: FakeLLM
) -> None:
    request = {"symbol": "600519.SH", "experts": ALL_EXPERTS, "token_budget": len(ALL_EXPERTS)}
    with _client(stack["coordinator"].url, CLIENTS["budget"]) as http:
        body = expect(http.post(RESEARCH, json=request), 200)
        detail = expect(http.get(f"{SESSIONS}/{body['session_id']}"), 200)

    assert set(server_usage(fake_llm)) == set(ALL_EXPERTS)  # no debate or judge call reached the server
    assert body["overall_status"] == "completed"  # every expert ran: a partial research, not a fallback
    assert body["debate_outcome"] is None
    assert body["verdict"] is None
    for stage in ("debate", "judge"):
        assert detail[stage]["status"] == "failed"
        assert detail[stage]["error"].startswith("token_budget_exhausted"), detail[stage]
    assert body["usage"]["budget_exhausted"] == ["debate", "judge"]
    assert body["usage"]["token_budget"] == len(ALL_EXPERTS)
    assert "token budget" in detail["status_reason"]


def test_a_failed_stage_counts_the_calls_it_made(stack: Stack, fake_llm: FakeLLM) -> None:
    """The judge's model answers prose (llm_output_invalid): the verdict fails after the coordinator asked again,
    and the calls of every attempt, reported in the judge's problem details, are in the session's usage."""
    fake_llm.client.reset(replies.malformed("judge", base=script()))
    with _client(stack["coordinator"].url, CLIENTS["flow"]) as http:
        body = expect(http.post(RESEARCH, json={"symbol": "600519.SH", "experts": ["technical_analyst"]}), 200)
        detail = expect(http.get(f"{SESSIONS}/{body['session_id']}"), 200)

    assert body["verdict"] is None
    assert detail["judge"]["status"] == "failed"
    counted = server_usage(fake_llm)
    assert counted["judge"]["llm_calls"] >= 2  # asked again (HTTP_MAX_ATTEMPTS)
    for usage in (body["usage"], detail["usage"]):
        assert counts(usage["stages"]["judge"]) == counted["judge"]
        assert counts(usage["total"]) == summed(counted)


def test_a_budget_that_stops_every_expert_is_a_422(stack: Stack, fake_llm: FakeLLM) -> None:
    request = {"symbol": "600519.SH", "experts": ALL_EXPERTS, "token_budget": 1}  # 1 // 5 experts = nothing each
    with _client(stack["coordinator"].url, CLIENTS["budget"]) as http:
        problem = expect_problem(http.post(RESEARCH, json=request), 422, "token_budget_exhausted")

    assert fake_llm.client.calls() == []  # no model call was made
    assert problem["overall_status"] == "failed"
    assert all(item["status"] == "failed" for item in problem["expert_results"].values())


def test_usage_sums_by_day_and_model_and_is_private_to_each_client(stack: Stack, fake_llm: FakeLLM) -> None:
    url = stack["coordinator"].url
    with _client(url, CLIENTS["ledger"]) as http:
        for _ in range(2):
            expect(http.post(RESEARCH, json={"symbol": "600519.SH", "experts": ["technical_analyst"]}), 200)
        counted = summed(server_usage(fake_llm))
        mine = expect(http.get("/api/v1/coordinator/usage"), 200)
    with _client(url, CLIENTS["other"]) as http:
        theirs = expect(http.get("/api/v1/coordinator/usage"), 200)
    with _client(url, ADMIN_KEY) as http:
        everyone = expect(http.get("/api/v1/coordinator/usage"), 200)
        refused = http.get("/api/v1/coordinator/usage", params={"start": "2026-02-30"})

    today = datetime.now(UTC).date().isoformat()
    assert [(r["day"], r["model"]) for r in mine["rows"]] == [(today, MODEL)]  # two researches: one row
    assert counts(mine["rows"][0]["usage"]) == counted == counts(mine["total"])
    assert mine["rows"][0]["client_id"] is None
    assert mine["cost"] == pytest.approx((counted["input_tokens"] + 4.0 * counted["output_tokens"]) / 1e6)
    assert theirs["rows"] == []
    assert theirs["total"]["llm_calls"] == 0
    rows = [r for r in everyone["rows"] if r["client_id"] == client_id("ledger")]
    assert [counts(r["usage"]) for r in rows] == [counted]  # an admin: per client
    expect_problem(refused, 400, "invalid_date")


@pytest.mark.skipif(not _redis_reachable(), reason="no Redis server at 127.0.0.1:6379")
def test_the_daily_token_quota_is_shared_by_two_coordinators_through_redis(stack: Stack, tmp_path: Path) -> None:
    peers = {
        "RESEARCH_SERVICE_URL": stack["research"].url,
        "DEBATE_SERVICE_URL": stack["debate"].url,
        "JUDGE_SERVICE_URL": stack["judge"].url,
    }
    coordinators = []
    try:
        for name in ("a", "b"):
            env = base_env(
                **_secured(REDIS_URL="redis://127.0.0.1:6379/14", CLIENT_DAILY_TOKENS="1"),
                **peers,
                SERVICE_API_KEY=SERVICE_KEY,
                DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / f'{name}.db'}",
            )
            process = ServiceProcess(
                f"coordinator-{name}", SERVICE_APPS["coordinator"], free_port(), env, tmp_path / name
            )
            coordinators.append(process)
            process.start()
        for process in coordinators:
            process.wait_ready()
        request = {"symbol": "600519.SH", "experts": ["technical_analyst"], "skip_debate": True}
        with _client(coordinators[0].url, CLIENTS["quota"]) as http:
            expect(http.post(RESEARCH, json=request), 200)  # it had tokens left when it started
        with _client(coordinators[1].url, CLIENTS["quota"]) as http:
            refused = http.post(RESEARCH, json=request)
        with _client(coordinators[1].url, CLIENTS["other"]) as http:
            expect(http.post(RESEARCH, json=request), 200)  # another client's tokens are its own
    finally:
        for process in coordinators:
            process.stop()

    expect_problem(refused, 429, "token_quota_exceeded")
    assert 0 < int(refused.headers["Retry-After"]) <= 86_400
