"""The LLM path across processes: research, debate and judge run their LLM engines against the fake
OpenAI-compatible server (its own uvicorn process, ``LLM_BASE_URL``/``LLM_MODEL``/``LLM_API_KEY``), the
coordinator in front of them; malformed model output and LLM faults end as the documented failures.

Every test installs its script and clears the server's call log first, then counts the calls per role
(``GET /_control/calls``). The research/debate/judge openai SDKs do not retry (``LLM_MAX_RETRIES=0``), so a
role's count is exactly what the services asked for; the coordinator itself retries a peer's 502/503/504
and an unparseable model output (``llm_output_invalid``, a 500 in every service: another sample may
parse) (``HTTP_MAX_ATTEMPTS``, 3), never another 500, nor an LLM failure the peer's SDK
retries (``llm_unavailable``, ``llm_timeout``) or that would fail again (``llm_upstream_error``).

The last test kills the coordinator (SIGKILL) mid-session and restarts it on the same database: the
full-stack counterpart of services/coordinator/tests/integration/test_session_crash_recovery.py (which
uses stand-in peers); here the peers are the real services and "only the unfinished expert is re-run" is
read from the LLM's call log.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_support import (
    ALL_EXPERTS,
    RESEARCH,
    SESSIONS,
    errors,
    expect,
    post_research,
    retry_path,
    statuses,
    wait_for,
)

from service_kit.stack.launcher import Stack, running_stack
from shared_contracts.experts import stance_of
from shared_contracts.judge import CONFIDENCE_SENTENCE
from shared_contracts.projection import project_expert_results
from shared_contracts.standing import standing_side
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import FakeLLM, running_fake_llm

pytestmark = pytest.mark.e2e

MODEL = "fake-e2e-model"
ATTEMPTS = 3  # the coordinator's HTTP_MAX_ATTEMPTS (its default)
LLM_ENGINE = {"kind": "llm", "model": MODEL, "fallback_reason": None}
PRICED_DAY = "2025-09-30"
"""The snapshot's last bar: a trade needs a close within ten weekdays of its analysis date (issue 38)."""
BULLISH_SYMBOL = "601838.SH"
"""On ``PRICED_DAY`` the offline snapshot ranks it 0.98 in its universe (every voting family heard): a BULLISH
debate, whatever the model answers. One ATR is 2.1 % of its close, so the scripted 6 % stop (2.9 ATR) and a 12 %
position (under 1 / 6 × 100) stand as the model proposed them."""
NEUTRAL_SYMBOL = "600519.SH"
"""On ``PRICED_DAY`` it ranks 0.61 in its universe: a NEUTRAL debate."""


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory.mktemp("e2e-llm-fake"), replies.script()) as fake:
        yield fake


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLM) -> Iterator[Stack]:
    llm = fake_llm.env(model=MODEL, REPORT_LANGUAGE="en")
    per_service = {
        "research": llm,
        "debate": llm,
        "judge": llm,
        "coordinator": {"HTTP_MAX_ATTEMPTS": str(ATTEMPTS), "HTTP_BACKOFF_SECONDS": "0.05"},
    }
    with running_stack(tmp_path_factory.mktemp("e2e-llm"), per_service_env=per_service) as running:
        yield running


@pytest.fixture
def coordinator(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack["coordinator"].url, timeout=90) as client:
        yield client


@pytest.fixture(autouse=True)
def fresh_script(fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(replies.script())


def test_a_full_research_in_llm_mode_calls_each_role_once_and_carries_the_models_answers(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    body = post_research(coordinator, symbol=BULLISH_SYMBOL, experts=ALL_EXPERTS, analysis_date=PRICED_DAY)

    assert body["overall_status"] == "completed"
    assert fake_llm.calls_by_role() == dict.fromkeys(replies.ROLES, 1)
    assert {c["model"] for c in fake_llm.client.calls()} == {MODEL}
    results = {e: item["data"] for e, item in body["expert_results"].items()}
    for expert, data in results.items():
        assert data["engine"] == LLM_ENGINE, expert
    # The model's answers, validated and passed on unchanged by research and the coordinator.
    ta = replies.reply("technical_analyst")
    # The vote is the technical family's standing (research: signal and confidence from it); the model's read stays,
    # after the vote, as context.
    assert results["technical_analyst"]["summary_reasoning"].endswith(ta["summary_reasoning"])
    assert results["technical_analyst"]["risk_warning"] == ta["risk_warning"]
    fa = replies.reply("financial_auditor")
    dimensions = results["financial_auditor"]["dimension_analyses"]
    assert [{k: d[k] for k in ("dimension", "assessment", "comment")} for d in dimensions] == fa["dimension_analyses"]
    valuation = replies.reply("valuation_modeler")
    assert results["valuation_modeler"]["reasoning_summary"].endswith(valuation["reasoning_summary"])
    assert results["valuation_modeler"]["risk_factors"] == valuation["risk_factors"]
    assert results["macro_intelligence"]["key_risks"] == replies.reply("macro_intelligence")["key_risks"]
    cd = replies.reply("catalyst_detective")
    assert results["catalyst_detective"]["result"]["catalyst_assessment"] == cd["catalyst_assessment"]
    assert results["catalyst_detective"]["raw_llm_output"]  # the raw text is kept for audit

    debate = body["debate_outcome"]
    resolution = replies.reply("resolution")
    # issue 35: with the stock's standing in its universe, the direction and confidence follow it, not the model
    assert "score" in debate
    side = standing_side(debate["score"], debate.get("universe_rank"), debate.get("standing_coverage"))
    assert (debate["direction"], debate["confidence"]) == side
    assert debate["direction"] == resolution["direction"] == "BULLISH"
    assert debate["conflict_resolution"].startswith(resolution["conflict_resolution"])
    assert "The resolution answered" not in debate["conflict_resolution"]  # it answered the weighing's side
    assert debate["bull_case"]["core_thesis"] == replies.reply("bull_advocate")["core_thesis"]
    assert debate["bear_case"]["core_thesis"] == replies.reply("bear_advocate")["core_thesis"]
    assert debate["risk_matrix"] == resolution["risk_matrix"]
    assert debate["engine"] == LLM_ENGINE

    verdict, judge = body["verdict"], replies.reply("judge")
    # the model's BUY on the BULLISH debate, its position × the NEUTRAL market view's exposure (the scripted macro)
    assert verdict["action"] == judge["action"] == "BUY"
    assert verdict["market_exposure"] == 0.8
    assert verdict["position_percent"] == pytest.approx(judge["position_percent"] * 0.8)
    assert [note["rule"] for note in verdict["guardrail_adjustments"]] == ["market_exposure"]
    assert verdict["stop_loss"]["percent_from_entry"] == -judge["stop_loss_percent"]  # signed by the service
    # Priced on one day, the technical analyst's close on its as_of (never a valuation close of another day).
    technical = results["technical_analyst"]
    assert body["analysis_date"] >= technical["as_of"]
    close = technical["technical_indicators"]["close"]
    assert verdict["stop_loss"]["price"] == pytest.approx(close * (1 - judge["stop_loss_percent"] / 100), abs=0.01)
    assert verdict["engine"] == LLM_ENGINE

    # What crossed the process boundaries into the prompts: the experts' reasoning reached the advocates,
    # the debate's theses reached the judge, and the filtered fields did not.
    prompts = {c["rule"]: c["prompt"] for c in fake_llm.client.calls(prompts=True)}
    assert ta["summary_reasoning"] in prompts["bull_advocate"]
    assert '"technical_indicators"' not in prompts["bull_advocate"]
    assert debate["bull_case"]["core_thesis"] in prompts["judge"]
    assert debate["bear_case"]["core_thesis"] in prompts["judge"]
    assert "Volatility" in prompts["judge"]  # a risk factor
    assert "Stop below support" not in prompts["judge"]  # its mitigation is dropped by the coordinator
    assert replies.reply("bull_advocate")["supporting_arguments"][0]["evidence"] not in prompts["judge"]
    # issue 52: the three debate prompts and the judge's carry the same weighing
    votes = {c["expert"]: c for c in debate["contributions"]}
    for expert in ("technical_analyst", "valuation_modeler", "financial_auditor"):  # each voted its standing
        assert stance_of(project_expert_results({expert: results[expert]})[expert].signal) == votes[expert]["signal"]
    technical = votes["technical_analyst"]
    line = f"- technical_analyst: signal {technical['signal']}, confidence {technical['confidence']:.2f}"
    for role in ("bull_advocate", "bear_advocate", "resolution"):
        assert line in prompts[role], role
        assert f"score = the sum of the contributions = {debate['score']:+.2f}" in prompts[role], role
    assert "Your dimensions (positive contributions): technical_analyst" in prompts["bull_advocate"]
    assert "Your dimensions (negative contributions):" in prompts["bear_advocate"]
    fixed = f"fixed by this weighing: direction BULLISH, confidence {debate['confidence']:.2f}"
    assert fixed in prompts["resolution"]
    assert f"- Score: {debate['score']:+.2f}" in prompts["judge"]
    assert f"  {line}" in prompts["judge"]
    assert "- Market view: NEUTRAL: market exposure 0.8" in prompts["judge"]


def test_a_buy_proposed_on_a_neutral_debate_is_held_by_the_debate_side_guardrail(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """Issue 52: the model's resolution answers BULLISH and its judge BUY 12 % (the scripted replies), but the
    stock's standing makes the debate NEUTRAL: the outcome keeps NEUTRAL and says why, the verdict is a HOLD."""
    body = post_research(coordinator, symbol=NEUTRAL_SYMBOL, experts=ALL_EXPERTS, analysis_date=PRICED_DAY)

    assert body["overall_status"] == "completed"
    assert fake_llm.calls_by_role() == dict.fromkeys(replies.ROLES, 1)
    debate, verdict, judge = body["debate_outcome"], body["verdict"], replies.reply("judge")
    assert debate["direction"] == "NEUTRAL"
    assert replies.reply("resolution")["direction"] == "BULLISH"
    assert debate["conflict_resolution"].endswith(
        "(The resolution answered BULLISH; the direction is the weighing's, fixed by the experts' standings: "
        f"NEUTRAL, confidence {debate['confidence']:.2f}.)"
    )
    assert (judge["action"], judge["position_percent"]) == ("BUY", 12)
    assert (verdict["action"], verdict["position_percent"]) == ("HOLD", 0.0)
    assert verdict["engine"] == LLM_ENGINE
    notes = {note["rule"]: note["detail"] for note in verdict["guardrail_adjustments"]}
    assert list(notes) == ["debate_side"]
    assert notes["debate_side"].startswith("BUY proposed on a NEUTRAL debate outcome")
    assert notes["debate_side"].endswith("→ HOLD, position 12% → 0%")
    assert verdict["reasoning"].startswith(judge["reasoning"])
    assert "so this BUY is a HOLD.)" in verdict["reasoning"]
    assert verdict["reasoning"].endswith(CONFIDENCE_SENTENCE["en"])  # the calibrated confidence, said last
    prompts = {c["rule"]: c["prompt"] for c in fake_llm.client.calls(prompts=True)}
    assert "- Direction: NEUTRAL" in prompts["judge"]
    assert "fixed by this weighing: direction NEUTRAL" in prompts["resolution"]


def test_an_unfavorable_market_view_scales_a_buy_on_a_bullish_debate_by_0_6(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """Issue 52: the macro expert's UNFAVORABLE view keeps 0.6 of the LLM judge's position, in the application
    layer (the rules engine sizes with it itself); the direction and the action do not move."""
    unfavorable = replies.reply("macro_intelligence") | {"macro_environment": "UNFAVORABLE"}
    fake_llm.client.reset(replies.with_role(replies.script(), "macro_intelligence", reply=unfavorable))

    body = post_research(coordinator, symbol=BULLISH_SYMBOL, experts=ALL_EXPERTS, analysis_date=PRICED_DAY)

    debate, verdict = body["debate_outcome"], body["verdict"]
    proposed = replies.reply("judge")["position_percent"]  # the model's BUY, at full exposure
    assert debate["direction"] == "BULLISH"
    assert (verdict["action"], verdict["market_exposure"]) == ("BUY", 0.6)
    assert verdict["position_percent"] == pytest.approx(proposed * 0.6) == 7.2
    notes = {note["rule"]: note["detail"] for note in verdict["guardrail_adjustments"]}
    assert list(notes) == ["market_exposure"]
    assert notes["market_exposure"].startswith(
        f"BUY position {proposed}% × market exposure 0.6 (market view UNFAVORABLE"
    )
    assert notes["market_exposure"].endswith("→ 7.2%")
    prompts = {c["rule"]: c["prompt"] for c in fake_llm.client.calls(prompts=True)}
    assert "- Market view: UNFAVORABLE: market exposure 0.6" in prompts["judge"]


@pytest.mark.parametrize(
    ("expert", "answer", "why"),
    [
        ("valuation_modeler", replies.MALFORMED_TEXT, "not a JSON object"),
        (
            "macro_intelligence",
            {**replies.reply("macro_intelligence"), "macro_environment": "SUNNY"},
            "macro_environment",
        ),
        ("financial_auditor", replies.TRUNCATED_JSON, ""),
    ],
    ids=["prose", "wrong-enum", "truncated"],
)
def test_an_experts_malformed_output_fails_that_expert_only(
    coordinator: httpx.Client, fake_llm: FakeLLM, expert: str, answer: Any, why: str
) -> None:
    fake_llm.client.reset(replies.malformed(expert, answer))  # type: ignore[arg-type]

    body = post_research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS)

    assert body["overall_status"] == "partial"
    assert errors(body).keys() == {expert}
    assert errors(body)[expert].startswith("research 500 llm_output_invalid:")
    assert why in errors(body)[expert]
    for other in set(ALL_EXPERTS) - {expert}:
        assert body["expert_results"][other]["data"]["engine"] == LLM_ENGINE
    assert body["debate_outcome"] is not None
    assert body["verdict"] is not None
    # llm_output_invalid is resampled by the coordinator: the expert was asked ATTEMPTS times, as the session records.
    calls = fake_llm.calls_by_role()
    assert calls[expert] == ATTEMPTS
    assert all(calls[role] == 1 for role in replies.ROLES if role != expert)
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["expert_results"][expert]["attempts"] == ATTEMPTS
    assert stored["status"] == "partial"


def test_retrying_the_partial_session_asks_the_llm_only_for_the_failed_expert_then_debate_and_judge(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    fake_llm.client.reset(replies.malformed("valuation_modeler"))
    source = post_research(coordinator, symbol=BULLISH_SYMBOL, experts=ALL_EXPERTS, analysis_date=PRICED_DAY)
    assert statuses(source)["valuation_modeler"] == "failed"

    fake_llm.client.reset(replies.script())  # the model behaves now
    retried = expect(coordinator.post(retry_path(source["session_id"])), 200)

    assert (retried["overall_status"], retried["retry_count"]) == ("completed", 1)
    assert fake_llm.calls_by_role() == {
        "valuation_modeler": 1,
        "bull_advocate": 1,
        "bear_advocate": 1,
        "resolution": 1,
        "judge": 1,
    }
    for expert in set(ALL_EXPERTS) - {"valuation_modeler"}:
        assert retried["expert_results"][expert] == source["expert_results"][expert]
    assert retried["expert_results"]["valuation_modeler"]["data"]["engine"] == LLM_ENGINE
    assert retried["verdict"]["action"] == "BUY"


def test_malformed_debate_output_gives_200_with_null_debate_and_verdict(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """辩论失败时 debate_outcome 和 verdict 均为 null (LLM 解析错误)."""
    fake_llm.client.reset(replies.malformed("bull_advocate"))

    body = post_research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS)

    assert (body["overall_status"], body["debate_outcome"], body["verdict"]) == ("completed", None, None)
    assert set(statuses(body).values()) == {"success"}
    calls = fake_llm.calls_by_role()
    assert calls["bull_advocate"] == ATTEMPTS  # llm_output_invalid: the coordinator asks again
    assert "resolution" not in calls
    assert "judge" not in calls
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["debate"]["status"] == "failed"
    assert stored["debate"]["error"].startswith("debate 500 llm_output_invalid: bull_advocate")
    assert stored["judge"]["status"] == "skipped"


def test_malformed_judge_output_keeps_the_debate_and_nulls_the_verdict(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    """辩论成功但裁决失败时 verdict 为 null."""
    fake_llm.client.reset(replies.malformed("judge", '{"action": "BUY", "position_percent": 250}'))

    body = post_research(coordinator, symbol="600519.SH", experts=ALL_EXPERTS)

    assert body["overall_status"] == "completed"
    outcome = body["debate_outcome"]
    assert (
        outcome["direction"]
        == standing_side(outcome["score"], outcome["universe_rank"], outcome["standing_coverage"])[0]
    )
    assert body["verdict"] is None
    assert fake_llm.calls_by_role()["judge"] == ATTEMPTS  # llm_output_invalid: the coordinator asks again
    stored = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert stored["judge"]["status"] == "failed"
    assert stored["judge"]["error"].startswith("judge 500 llm_output_invalid")


def test_an_llm_endpoint_fault_is_503_for_that_expert_not_retried_again_by_the_coordinator(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    fake_llm.client.reset(replies.fault("catalyst_detective", 500))

    body = post_research(coordinator, symbol="600519.SH", experts=["technical_analyst", "catalyst_detective"])

    assert body["overall_status"] == "partial"
    assert errors(body)["catalyst_detective"].startswith("research 503 llm_unavailable:")
    assert fake_llm.calls_by_role()["catalyst_detective"] == 1  # research's SDK retries it (LLM_MAX_RETRIES=0 here)
    assert body["verdict"] is not None


def test_an_llm_that_refuses_an_experts_call_is_asked_once(coordinator: httpx.Client, fake_llm: FakeLLM) -> None:
    fake_llm.client.reset(replies.fault("catalyst_detective", 400))

    body = post_research(coordinator, symbol="600519.SH", experts=["technical_analyst", "catalyst_detective"])

    assert body["overall_status"] == "partial"
    assert errors(body)["catalyst_detective"].startswith("research 502 llm_upstream_error:")
    assert fake_llm.calls_by_role()["catalyst_detective"] == 1  # a refusal is final: no second, paid call
    assert body["verdict"] is not None


def test_a_debate_llm_outage_nulls_debate_and_verdict_without_a_second_debate(
    coordinator: httpx.Client, fake_llm: FakeLLM
) -> None:
    fake_llm.client.reset(replies.fault("resolution", 503))

    body = post_research(coordinator, symbol="600519.SH", experts=["technical_analyst"])

    assert (body["overall_status"], body["debate_outcome"], body["verdict"]) == ("completed", None, None)
    calls = fake_llm.calls_by_role()
    assert calls["resolution"] == 1  # llm_unavailable: the debate's SDK retries the LLM; the coordinator does not
    assert "judge" not in calls


# ------------------------------------------------------------------------------------- crash


def test_a_coordinator_killed_mid_session_resumes_it_asking_the_llm_only_for_what_had_not_finished(
    stack: Stack, fake_llm: FakeLLM
) -> None:
    """Full stack: macro_intelligence's LLM answer is held back (latency) while the coordinator is SIGKILLed;
    the restarted coordinator resumes the session from its checkpoint (issue 36) and asks the LLM for macro,
    the debate and the judge only."""
    held = "macro_intelligence"
    fake_llm.client.reset(replies.with_role(replies.script(), held, latency_ms=20_000, times=1))
    # The held expert first: the two after it finish while it is held, so the experts run in parallel.
    experts = [held, "technical_analyst", "valuation_modeler"]
    url = stack["coordinator"].url
    outcome: dict[str, Any] = {}

    def post() -> None:
        try:
            outcome["response"] = httpx.post(
                url + RESEARCH, json={"symbol": "600519.SH", "experts": experts}, timeout=90
            )
        except httpx.HTTPError as exc:
            outcome["error"] = exc

    in_flight = threading.Thread(target=post)
    in_flight.start()
    with httpx.Client(base_url=url, timeout=30) as client:
        running: list[str] = []

        def finished_experts_committed() -> bool:
            page = expect(client.get(SESSIONS, params={"status": "running"}), 200)
            running[:] = [s["session_id"] for s in page["items"]]
            if len(running) != 1:
                return False
            stored = expect(client.get(f"{SESSIONS}/{running[0]}"), 200)["expert_results"]
            return {"technical_analyst", "valuation_modeler"} <= stored.keys()

        wait_for(finished_experts_committed, "the two fast experts to be committed while macro is held")
        assert replies.calls_by_role(fake_llm.client.calls(in_flight=True)).get(held) == 1
    stack["coordinator"].kill()
    in_flight.join(timeout=30)
    assert isinstance(outcome.get("error"), httpx.TransportError), outcome

    fake_llm.client.reset(replies.script())  # before the restart: the resumed run calls the LLM at once
    stack["coordinator"].restart()  # same SQLite file: start-up claims what was running and resumes it
    with httpx.Client(base_url=url, timeout=90) as client:
        before = expect(client.get(f"{SESSIONS}/{running[0]}"), 200)["expert_results"]

        def resumed_and_finished() -> bool:
            return expect(client.get(f"{SESSIONS}/{running[0]}"), 200)["status"] == "completed"

        wait_for(resumed_and_finished, "the restarted coordinator to resume and finish the session")
        done = expect(client.get(f"{SESSIONS}/{running[0]}"), 200)

    assert done["resume_count"] == 1
    assert fake_llm.calls_by_role() == {held: 1, "bull_advocate": 1, "bear_advocate": 1, "resolution": 1, "judge": 1}
    for expert in ("technical_analyst", "valuation_modeler"):
        assert done["expert_results"][expert]["data"] == before[expert]["data"]
    assert done["expert_results"][held]["status"] == "success"
    assert done["verdict"] is not None
