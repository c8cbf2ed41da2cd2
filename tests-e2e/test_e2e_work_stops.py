"""Work stops when its caller goes (issue 53), against real processes and the fake model server, which logs a call
whose client hung up as ``abandoned`` (never answered):

- a cancelled research: the coordinator's peer requests are aborted, the research service cancels its handlers
  and their model calls; no model call reaches the fake server 1 s after the cancel;
- ``kill -9`` of the coordinator during the debate: the debate service stops the orphaned debate (its connection
  closed with the process) and the restarted coordinator resumes each research from its checkpoint: each debate
  agent answers once per research.

The peers' disconnect handling itself: ``service-kit/tests/unit/test_disconnect.py`` and
``service-kit/tests/integration/test_disconnect_over_sockets.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import ALL_EXPERTS, RESEARCH, SESSIONS, expect, wait_for

from debate.main import create_app as debate_app
from judge.main import create_app as judge_app
from research.main import create_app as research_app
from service_kit.disconnect import CancelOnDisconnectMiddleware
from service_kit.stack.launcher import Stack, running_stack
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

HELD_MS = 5_000
"""How long the fake server holds a held call: a call not aborted would be answered well within a test."""
ASYNC = {"Prefer": "respond-async"}


def test_every_peer_stops_its_work_when_its_caller_goes() -> None:
    for create_app in (research_app, debate_app, judge_app):
        assert CancelOnDisconnectMiddleware in [m.cls for m in create_app().user_middleware]


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("e2e-stops-fake"), replies.script()) as fake:
        yield fake


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    llm = fake_llm.env()
    per_service = {"research": llm, "debate": llm, "judge": llm, "coordinator": {"JOB_POLL_SECONDS": "0.2"}}
    with running_stack(tmp_path_factory.mktemp("e2e-stops"), per_service_env=per_service) as running:
        yield running


def _held(fake_llm: FakeLLM, roles: tuple[str, ...]) -> list[dict[str, Any]]:
    return [c for c in fake_llm.client.calls(in_flight=True) if c["status"] is None and c["rule"] in roles]


def _abandoned(fake_llm: FakeLLM) -> list[dict[str, Any]]:
    return [c for c in fake_llm.client.calls(abandoned=True) if "abandoned" in c]


@pytest.mark.e2e
def test_a_cancelled_research_makes_no_model_call_a_second_after_the_cancel(stack: Stack, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(replies.script(latency_ms=HELD_MS))
    with httpx.Client(base_url=stack["coordinator"].url, timeout=30) as client:
        body = {"symbol": "600519.SH", "experts": ALL_EXPERTS}
        session_id = expect(client.post(RESEARCH, json=body, headers=ASYNC), 202)["session_id"]
        wait_for(lambda: len(_held(fake_llm, replies.RESEARCH_ROLES)) == 5, "the five experts' model calls")

        cancelled_at = time.monotonic()
        expect(client.post(f"{SESSIONS}/{session_id}/cancel"), 202)
        time.sleep(max(0.0, cancelled_at + HELD_MS / 1000 + 1.0 - time.monotonic()))  # past the held calls' answer
        stored = expect(client.get(f"{SESSIONS}/{session_id}"), 200)

    assert stored["status"] == "cancelled"
    assert fake_llm.client.calls(in_flight=True) == []  # nothing answered, nothing waiting
    abandoned = _abandoned(fake_llm)
    assert sorted(c["rule"] for c in abandoned) == sorted(replies.RESEARCH_ROLES)
    assert all(c["started"] < cancelled_at for c in abandoned)  # no call started after the cancel
    late = [round(c["abandoned"] - cancelled_at, 3) for c in abandoned if c["abandoned"] > cancelled_at + 1.0]
    assert late == [], "model calls still open a second after the cancel"


@pytest.mark.e2e
def test_a_coordinator_killed_during_the_debate_leaves_no_orphaned_debate(stack: Stack, fake_llm: FakeLLM) -> None:
    """Four researches in their debate when the coordinator is SIGKILLed; restarted, it resumes them: the killed
    run's advocates are cut off (abandoned), and each debate agent answers once per research."""
    script = replies.script()
    for role in replies.DEBATE_ROLES:
        script = replies.with_role(script, role, latency_ms=HELD_MS)
    fake_llm.client.reset(script)
    body = {"symbol": "600519.SH", "experts": [replies.CITED_EXPERT]}
    coordinator = stack["coordinator"]
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:
        ids = [expect(client.post(RESEARCH, json=body, headers=ASYNC), 202)["session_id"] for _ in range(4)]
    wait_for(lambda: len(_held(fake_llm, ("bull_advocate", "bear_advocate"))) == 8, "four debates' advocates")

    coordinator.kill()
    killed_at = time.monotonic()
    coordinator.restart()  # same database: its start-up queues the killed coordinator's sessions again
    with httpx.Client(base_url=coordinator.url, timeout=30) as client:

        def finished() -> bool:
            return all(expect(client.get(f"{SESSIONS}/{i}"), 200)["status"] == "completed" for i in ids)

        wait_for(finished, "the four researches resumed and completed", timeout=120)
        resumed = [expect(client.get(f"{SESSIONS}/{i}"), 200)["resume_count"] for i in ids]

    assert resumed == [1, 1, 1, 1]
    answered = replies.calls_by_role(fake_llm.client.calls())
    assert answered == {replies.CITED_EXPERT: 4, "bull_advocate": 4, "bear_advocate": 4, "resolution": 4, "judge": 4}
    orphaned = _abandoned(fake_llm)
    assert replies.calls_by_role(orphaned) == {"bull_advocate": 4, "bear_advocate": 4}  # cut off, never answered
    assert all(c["abandoned"] - killed_at < 1.0 for c in orphaned)
