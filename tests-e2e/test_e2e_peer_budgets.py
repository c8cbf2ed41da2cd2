"""Peers trust token budgets only from the coordinator (issue 53), against real research, debate and judge processes
on the fake OpenAI-compatible server (``AUTH_MODE=api_key``, the LLM engine): a client key asking any of them for
model calls directly is refused (403 ``model_calls_not_allowed``) before any model call, whatever its
``X-Token-Budget``; the service key's ``X-Token-Budget: 999999999999`` is capped at ``REQUEST_TOKEN_BUDGET``; with
``ALLOW_CLIENT_MODEL_CALLS=true`` a client key is served with the cap, its header ignored."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import DEBATE_RUN, EXPERT_PATH, JUDGE_VERDICT, expect_problem

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import ServiceProcess, running_service
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

CLIENT_KEY, SERVICE_KEY = new_key(), new_key()
API_KEYS = f"alice={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service"
CALL_TOKENS = 1_010
"""What every model call uses on the fake server (1,000 in, 10 out)."""
CAP = 1_500
"""REQUEST_TOKEN_BUDGET: the debate's bull and bear start under it (1,010 used after the first), the resolution
finds it spent."""
HUGE = "999999999999"
DEBATE_BODY = {
    "symbol": "600519.SH",
    "expert_results": {
        "technical_analyst": {"signal": "BULLISH", "confidence": 0.7, "reasoning": "trend up", "risk_warning": "vol"},
        "financial_auditor": {"signal": "BEARISH", "confidence": 0.6, "reasoning": "margins", "risk_warning": "debt"},
    },
}
PEER_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "research": (EXPERT_PATH.format(expert="technical_analyst"), {"symbol": "600519.SH"}),
    "debate": (DEBATE_RUN, DEBATE_BODY),
    "judge": (JUDGE_VERDICT, {"symbol": "600519.SH"}),
}


def _script() -> dict[str, Any]:
    base = replies.script()
    for rule in base["rules"]:
        rule["usage"] = {"prompt_tokens": 1_000, "completion_tokens": 10}
    return base


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("peer-budget-llm"), _script()) as fake:
        yield fake


@pytest.fixture(autouse=True)
def fresh_script(fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(_script())


@contextlib.contextmanager
def _peer(name: str, workdir: Path, fake_llm: FakeLLM, **extra: str) -> Iterator[ServiceProcess]:
    env = fake_llm.env(REPORT_LANGUAGE="en", AUTH_MODE="api_key", API_KEYS=API_KEYS, REQUEST_TOKEN_BUDGET=str(CAP))
    with running_service(name, workdir, **env, RATE_LIMIT_WRITES="1000/minute", **extra) as service:
        yield service


@pytest.fixture(scope="module")
def peers(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[dict[str, str]]:
    """The three peers, each with the LLM engine, client keys not allowed model calls."""
    with contextlib.ExitStack() as stack:
        urls = {}
        for name in PEER_CALLS:
            urls[name] = stack.enter_context(_peer(name, tmp_path_factory.mktemp(name), fake_llm)).url
        yield urls


@pytest.fixture(scope="module")
def open_debate(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[ServiceProcess]:
    with _peer("debate", tmp_path_factory.mktemp("open-debate"), fake_llm, ALLOW_CLIENT_MODEL_CALLS="true") as service:
        yield service


def _post(url: str, key: str, path: str, body: dict[str, Any], budget: str | None = HUGE) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}", **({"X-Token-Budget": budget} if budget is not None else {})}
    return httpx.post(url + path, json=body, headers=headers, timeout=60)


def test_a_client_key_is_refused_model_calls_on_every_peer(peers: dict[str, str], fake_llm: FakeLLM) -> None:
    for name, (path, body) in PEER_CALLS.items():
        for _ in range(3):
            problem = expect_problem(_post(peers[name], CLIENT_KEY, path, body), 403, "model_calls_not_allowed")
            assert "coordinator" in problem["detail"]
    assert fake_llm.client.calls() == []  # no model call made for it


def test_the_service_keys_budget_is_capped_at_the_peers_own(peers: dict[str, str], fake_llm: FakeLLM) -> None:
    response = _post(peers["debate"], SERVICE_KEY, DEBATE_RUN, DEBATE_BODY)
    problem = expect_problem(response, 422, "token_budget_exhausted")

    assert fake_llm.calls_by_role() == {"bull_advocate": 1, "bear_advocate": 1}  # the resolution found it spent
    assert problem["usage"]["input_tokens"] + problem["usage"]["output_tokens"] == 2 * CALL_TOKENS
    assert str(CAP) in problem["detail"]


def test_a_smaller_budget_from_the_service_key_is_honoured(peers: dict[str, str], fake_llm: FakeLLM) -> None:
    for name in ("research", "debate"):
        path, body = PEER_CALLS[name]
        expect_problem(_post(peers[name], SERVICE_KEY, path, body, budget="0"), 422, "token_budget_exhausted")
    assert fake_llm.client.calls() == []


def test_with_client_model_calls_allowed_a_client_key_gets_the_cap_whatever_it_asks(
    open_debate: ServiceProcess, fake_llm: FakeLLM
) -> None:
    for asked in (HUGE, "0", None):
        fake_llm.client.reset(_script())
        response = _post(open_debate.url, CLIENT_KEY, DEBATE_RUN, DEBATE_BODY, budget=asked)
        problem = expect_problem(response, 422, "token_budget_exhausted")
        assert str(CAP) in problem["detail"]  # neither 999999999999 nor 0: its header is ignored
        assert fake_llm.calls_by_role() == {"bull_advocate": 1, "bear_advocate": 1}
