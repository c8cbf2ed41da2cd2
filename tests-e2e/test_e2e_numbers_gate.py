"""The numbers gate across processes, with the fake OpenAI-compatible server: a research whose scripted answers
hold hallucinated figures comes back repaired (the second model call is in the fake's log) or marked, with
``numbers_check`` on the results, rolled up in the coordinator's answer and stored in the session; with
``LLM_NUMBERS_POLICY=reject`` the research service answers 500 ``llm_output_invalid`` naming the figures."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from e2e_support import RESEARCH, SESSIONS

from service_kit.stack.launcher import Stack, running_stack
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

MARK = "⟨unverified⟩"
SYMBOL = "600519.SH"
HALLUCINATED_TECHNICAL = "Close at 9,999.99 and a 37.37% rally in the last 20 days; RSI14 neutral."
REPAIRED_TECHNICAL = "Close above MA20 and MA60; RSI14 neutral."
HALLUCINATED_JUDGE = "Bullish outcome; the stock has 42.42% upside to its fair value."


def hallucinating_script() -> dict[str, object]:
    """Every role well-formed; the technical analyst invents two figures and drops them when asked again; the
    judge invents one and repeats it when asked again."""
    technical = replies.reply("technical_analyst") | {"summary_reasoning": HALLUCINATED_TECHNICAL}
    judge = replies.reply("judge") | {"reasoning": HALLUCINATED_JUDGE}
    script = replies.with_role(replies.script(), "technical_analyst", reply=technical)
    script = replies.with_role(script, "judge", reply=judge)
    repair = {
        "name": "technical_analyst_repair",
        "match": "- summary_reasoning: 9,999.99",  # the repair prompt lists the untraceable figures
        "reply": technical | {"summary_reasoning": REPAIRED_TECHNICAL},
    }
    script["rules"] = [repair, *script["rules"]]  # type: ignore[index, misc]
    return script


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("e2e-numbers-fake"), hallucinating_script()) as fake:
        yield fake


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    llm = fake_llm.env(REPORT_LANGUAGE="en")  # LLM_NUMBERS_POLICY unset: repair, the default
    per_service = {"research": llm, "debate": llm, "judge": llm}
    with running_stack(tmp_path_factory.mktemp("e2e-numbers"), per_service_env=per_service) as running:
        yield running


@pytest.fixture(scope="module")
def rejecting_research(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    env = {"research": fake_llm.env(REPORT_LANGUAGE="en", LLM_NUMBERS_POLICY="reject")}
    with running_stack(tmp_path_factory.mktemp("e2e-numbers-reject"), per_service_env=env, only=("research",)) as s:
        yield s


def test_hallucinated_figures_are_repaired_or_marked_and_rolled_up(stack: Stack, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(hallucinating_script())
    with httpx.Client(base_url=stack["coordinator"].url, timeout=120) as http:
        response = http.post(RESEARCH, json={"symbol": SYMBOL, "experts": ["technical_analyst", "valuation_modeler"]})
        assert response.status_code == 200, response.text
        body = response.json()
        stored = http.get(f"{SESSIONS}/{body['session_id']}").json()

    calls = fake_llm.calls_by_role()
    assert calls["technical_analyst"] == 1
    assert calls["technical_analyst_repair"] == 1
    assert calls["judge"] == 2  # asked again, answered the same
    assert calls["valuation_modeler"] == calls["bull_advocate"] == calls["resolution"] == 1  # clean answers

    technical = body["expert_results"]["technical_analyst"]["data"]
    # The vote is the standing's (issue 52); the model's repaired text follows it as context.
    assert technical["summary_reasoning"].endswith("Context only, not part of the vote: " + REPAIRED_TECHNICAL)
    assert technical["numbers_check"] == {"checked": 0, "traced": 0, "unverified": [], "repaired": True}

    verdict = body["verdict"]
    # The research is of today, far past the snapshot's last close: the judge holds and says so after the model's
    # text (issue 38, no action without a price); the model's own sentence is marked where its figure is untraced.
    assert verdict["reasoning"].startswith(HALLUCINATED_JUDGE.replace("42.42%", f"42.42%{MARK}"))
    assert verdict["numbers_check"]["repaired"] is True
    assert verdict["numbers_check"]["unverified"] == [{"field": "reasoning", "text": "42.42%", "value": 42.42}]

    rollup = body["numbers_check"]
    assert rollup["total"]["unverified"] == [{"field": "judge.reasoning", "text": "42.42%", "value": 42.42}]
    assert rollup["total"]["repaired"] is True
    assert set(rollup["stages"]) == {"technical_analyst", "valuation_modeler", "debate", "judge"}
    assert stored["numbers_check"] == rollup  # the session stores what the research answered
    assert stored["verdict"]["numbers_check"] == verdict["numbers_check"]


def test_reject_refuses_an_answer_with_untraceable_figures(rejecting_research: Stack, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(hallucinating_script())
    url = f"{rejecting_research['research'].url}/api/v1/research/experts/technical_analyst"
    response = httpx.post(url, json={"symbol": SYMBOL}, timeout=60)
    assert response.status_code == 500
    problem = response.json()
    assert problem["code"] == "llm_output_invalid"
    assert "9,999.99" in problem["detail"]
    assert "37.37%" in problem["detail"]
    assert fake_llm.calls_by_role() == {"technical_analyst": 1}  # no repair call under reject
