"""Faults over real processes: a slow research expert past the coordinator's budget, and the debate, judge
and research services down (SIGKILL). LLM engines on the fake OpenAI-compatible server, so a slow expert
is one whose prompt the fake answers late, and the LLM's call log says which roles were asked.

One stack for the module with a small ``EXPERT_TIMEOUT_SECONDS``. Each test states which services it
needs up and which down (``_services``): a killed one stays down for the next tests, and a needed one
that an earlier test killed is restarted, so the tests are independent of their order (in file order
nothing is restarted).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from e2e_support import ALL_EXPERTS, RESEARCH, SESSIONS, errors, expect, expect_problem, post_research, statuses

from service_kit.stack.launcher import Stack, running_stack
from shared_contracts.standing import standing_side
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

EXPERT_TIMEOUT = 3.0
SLOW_MS = 8_000


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("e2e-faults-fake"), replies.script()) as fake:
        yield fake


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    llm = fake_llm.env()
    per_service = {
        "research": llm,
        "debate": llm,
        "judge": llm,
        "coordinator": {
            "EXPERT_TIMEOUT_SECONDS": str(EXPERT_TIMEOUT),
            "HTTP_MAX_ATTEMPTS": "3",
            "HTTP_BACKOFF_SECONDS": "0.05",
            "CONNECT_TIMEOUT_SECONDS": "1",
        },
    }
    with running_stack(tmp_path_factory.mktemp("e2e-faults"), per_service_env=per_service) as running:
        yield running


@pytest.fixture
def coordinator(stack: Stack, fake_llm: FakeLLM) -> Iterator[httpx.Client]:
    fake_llm.client.reset(replies.script())
    with httpx.Client(base_url=stack["coordinator"].url, timeout=60) as client:
        yield client


def _services(stack: Stack, *, up: tuple[str, ...] = (), down: tuple[str, ...] = ()) -> None:
    """Kill the ``down`` services, restart any ``up`` one an earlier test killed; leave the others as they are."""
    for name in down:
        stack[name].kill()
    for name in up:
        if not stack[name].alive:
            stack[name].restart()


def test_an_expert_slower_than_its_budget_fails_alone_and_the_rest_goes_on(
    stack: Stack, coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    _services(stack, up=("research", "debate", "judge"))
    fake_llm.client.reset(replies.with_role(replies.script(), "macro_intelligence", latency_ms=SLOW_MS))

    started = time.monotonic()
    body = post_research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS)
    elapsed = time.monotonic() - started

    assert elapsed < SLOW_MS / 1000, "the coordinator waited for the slow expert"
    assert body["overall_status"] == "partial"
    assert errors(body).keys() == {"macro_intelligence"}
    assert errors(body)["macro_intelligence"] == f"research timed out after {EXPERT_TIMEOUT:g}s (1 attempt)"
    assert {e for e, s in statuses(body).items() if s == "success"} == set(ALL_EXPERTS) - {"macro_intelligence"}
    assert body["debate_outcome"] is not None
    assert body["verdict"] is not None
    calls = fake_llm.calls_by_role()
    assert "macro_intelligence" not in calls  # its LLM call had not even answered
    assert calls["judge"] == 1
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["expert_results"]["macro_intelligence"]["status"] == "failed"
    assert stored["expert_results"]["macro_intelligence"]["duration_ms"] >= EXPERT_TIMEOUT * 1000 * 0.9


def test_judge_down_keeps_the_debate_and_nulls_the_verdict(
    stack: Stack, coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """辩论成功但裁决失败时 verdict 为 null — the judge process is gone."""
    _services(stack, up=("research", "debate"), down=("judge",))

    body = post_research(coordinator, symbol="600519.SH", experts=["technical_analyst", "financial_auditor"])

    assert body["overall_status"] == "completed"
    outcome = body["debate_outcome"]  # issue 35: its direction follows the stock's standing, not the model's
    # Issue 52: without the valuation modeler the heard families are renormalised and the score has no rank.
    assert (
        outcome["direction"]
        == standing_side(outcome["score"], outcome.get("universe_rank"), outcome["standing_coverage"])[0]
    )
    assert body["verdict"] is None
    assert "judge" not in fake_llm.calls_by_role()
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert (stored["debate"]["status"], stored["judge"]["status"]) == ("success", "failed")
    assert "judge" in stored["judge"]["error"]
    ready = coordinator.get("/readyz")
    assert ready.status_code == 503
    assert "judge" in ready.text


def test_debate_down_is_200_with_null_debate_and_verdict(
    stack: Stack, coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """辩论失败时 debate_outcome 和 verdict 均为 null — the debate process is gone."""
    _services(stack, up=("research",), down=("debate",))

    body = post_research(coordinator, symbol="000001.SZ", experts=["technical_analyst", "macro_intelligence"])

    assert (body["overall_status"], body["debate_outcome"], body["verdict"]) == ("completed", None, None)
    assert set(statuses(body).values()) == {"success"}
    calls = fake_llm.calls_by_role()
    assert calls == {"technical_analyst": 1, "macro_intelligence": 1}
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["debate"]["status"] == "failed"
    assert "debate" in stored["debate"]["error"]
    assert stored["judge"]["status"] == "skipped"


def test_research_down_is_500_with_every_experts_error(
    stack: Stack, coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """全部专家失败时返回 500 — the research process is gone; connection refused is retried, then reported."""
    _services(stack, down=("research",))

    response = coordinator.post(RESEARCH, json={"symbol": "600519.SH", "experts": ALL_EXPERTS})

    body = expect_problem(response, 500, "all_experts_failed")
    assert body["overall_status"] == "failed"
    assert statuses(body) == dict.fromkeys(ALL_EXPERTS, "failed")
    for expert, error in errors(body).items():
        assert error.startswith("research unreachable: "), (expert, error)
        assert "http://" not in error, (expert, error)
        assert "3 attempts" in error, (expert, error)
    assert (body["debate_outcome"], body["verdict"]) == (None, None)
    assert fake_llm.calls_by_role() == {}
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["status"] == "failed"
    assert {o["attempts"] for o in stored["expert_results"].values()} == {3}
