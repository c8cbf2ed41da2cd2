"""The scripted LLM replies (stack_fakes.llm_replies) and the fake server (stack_fakes.fake_llm) are right
before any process starts: every reply is valid for its role's output model, every ``match`` picks exactly its own
role's prompt, and the fake server honours rules, faults, ``times``, latency, reset and the call log."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from debate.domain.dtos.risk_matrix import ResolutionResult
from debate.infrastructure.agents.output_parser import BearAdvocateOutput, BullAdvocateOutput
from judge.infrastructure.agents.output_schemas import JudgeLLMOutput
from research.domain.model.verdicts import (
    CatalystVerdict,
    FinancialVerdict,
    MacroVerdict,
    TechnicalVerdict,
    ValuationVerdictModel,
)
from service_kit.llm.json_output import parse_model_output
from shared_contracts.errors import LLMOutputParseError
from stack_fakes import llm_replies as replies
from stack_fakes.fake_llm import create_app

ROOT = Path(__file__).resolve().parent.parent
RESEARCH_AGENTS = ROOT / "services/research/src/research/infrastructure/agents"
DEBATE_AGENTS = ROOT / "services/debate/src/debate/infrastructure/agents"
JUDGE_AGENTS = ROOT / "services/judge/src/judge/infrastructure/agents"

PROMPT_DIRS: dict[str, Path] = {
    **{role: RESEARCH_AGENTS / role / "prompts" for role in replies.RESEARCH_ROLES},
    **{role: DEBATE_AGENTS / role / "prompts" for role in replies.DEBATE_ROLES},
    "judge": JUDGE_AGENTS / "judge" / "prompts",
}
MODELS: dict[str, type[BaseModel]] = {
    "technical_analyst": TechnicalVerdict,
    "financial_auditor": FinancialVerdict,
    "valuation_modeler": ValuationVerdictModel,
    "macro_intelligence": MacroVerdict,
    "catalyst_detective": CatalystVerdict,
    "bull_advocate": BullAdvocateOutput,
    "bear_advocate": BearAdvocateOutput,
    "resolution": ResolutionResult,
    "judge": JudgeLLMOutput,
}


def _prompt_text(role: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(PROMPT_DIRS[role].glob("*.md")))


def test_every_role_has_prompts_a_match_a_reply_and_a_model() -> None:
    assert set(replies.ROLES) == set(PROMPT_DIRS) == set(replies.MATCH) == set(replies.REPLIES) == set(MODELS)
    for role, directory in PROMPT_DIRS.items():
        assert sorted(p.name for p in directory.glob("*.md")) == ["system.md", "user.md"], role
    # No prompt directory the module does not know about (a new role needs a reply).
    found = {
        p.parent.parent.name
        for p in [
            *RESEARCH_AGENTS.glob("*/prompts/system.md"),
            *DEBATE_AGENTS.glob("*/prompts/system.md"),
            *JUDGE_AGENTS.glob("*/prompts/system.md"),
        ]
    }
    assert found == set(replies.ROLES)


@pytest.mark.parametrize("role", replies.ROLES)
def test_each_reply_is_valid_for_its_roles_output_model(role: str) -> None:
    parsed = parse_model_output(json.dumps(replies.reply(role)), MODELS[role])
    assert parsed is not None


@pytest.mark.parametrize("role", replies.ROLES)
def test_each_match_occurs_in_its_own_prompt_and_nowhere_else(role: str) -> None:
    match = replies.MATCH[role]
    assert match in _prompt_text(role)
    for other in replies.ROLES:
        if other != role:
            assert match not in _prompt_text(other), f"{role}'s match is in {other}'s prompt"
    # Replies travel into later prompts (expert reasoning → debate, theses → judge): no reply may carry a match.
    for other in replies.ROLES:
        assert match not in json.dumps(replies.reply(other), ensure_ascii=False)


def test_the_advocates_cite_only_the_expert_the_module_promises() -> None:
    for role in ("bull_advocate", "bear_advocate"):
        cited = {e for arg in replies.reply(role)["supporting_arguments"] for e in arg["source_experts"]}
        assert cited == {replies.CITED_EXPERT}


@pytest.mark.parametrize("text", [replies.MALFORMED_TEXT, replies.TRUNCATED_JSON])
@pytest.mark.parametrize("role", replies.ROLES)
def test_the_malformed_texts_are_rejected_by_every_parser(role: str, text: str) -> None:
    with pytest.raises(LLMOutputParseError):
        parse_model_output(text, MODELS[role])


def test_script_and_overrides() -> None:
    base = replies.script(latency_ms=25)
    assert [r["name"] for r in base["rules"]] == list(replies.ROLES)
    assert {r["latency_ms"] for r in base["rules"]} == {25}

    faulty = replies.fault("judge", 503, base)
    assert next(r for r in faulty["rules"] if r["name"] == "judge")["status"] == 503
    assert base["rules"][-1].get("status") is None  # the base is not changed

    once = replies.with_role(base, "resolution", reply="nope", times=1)
    names = [r["name"] for r in once["rules"]]
    assert names.count("resolution") == 2
    first = names.index("resolution")
    assert once["rules"][first]["reply"] == "nope"
    assert once["rules"][first + 1]["reply"] == replies.reply("resolution")

    assert replies.calls_by_role([{"rule": "judge"}, {"rule": "judge"}, {"rule": None}]) == {"judge": 2, "unmatched": 1}


# ------------------------------------------------------------------------------------- the fake server


def _chat(prompt: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "system", "content": prompt}, {"role": "user", "content": "facts"}]}


async def test_the_fake_server_answers_by_rule_with_faults_times_and_a_call_log() -> None:
    app = create_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://fake") as client:
        script = replies.with_role(replies.script(), "judge", status=503, times=1)
        assert (await client.put("/_control/script", json=script)).json() == {"rules": 10}

        judge_prompt = replies.MATCH["judge"] + " Give your verdict."
        first = await client.post("/v1/chat/completions", json=_chat(judge_prompt))
        second = await client.post("/v1/chat/completions", json=_chat(judge_prompt))
        unmatched = await client.post("/v1/chat/completions", json=_chat("something else"))

        assert first.status_code == 503
        assert second.status_code == 200
        content = second.json()["choices"][0]["message"]["content"]
        assert json.loads(content) == replies.reply("judge")
        assert second.json()["usage"]["total_tokens"] > 0
        assert unmatched.status_code == 500
        calls = (await client.get("/_control/calls")).json()
        assert [(c["rule"], c["status"]) for c in calls] == [("judge", 503), ("judge", 200), (None, 500)]
        assert "prompt" not in calls[0]
        with_prompts = (await client.get("/_control/calls", params={"prompts": True})).json()
        assert with_prompts[0]["prompt"].startswith(replies.MATCH["judge"])


async def test_a_reset_forgets_the_calls_and_releases_the_held_ones() -> None:
    app = create_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://fake") as client:
        await client.put(
            "/_control/script", json=replies.with_role(replies.script(), "bull_advocate", latency_ms=30_000)
        )
        held = asyncio.create_task(client.post("/v1/chat/completions", json=_chat(replies.MATCH["bull_advocate"])))
        for _ in range(100):
            pending = (await client.get("/_control/calls", params={"in_flight": True})).json()
            if pending:
                break
            await asyncio.sleep(0.01)
        assert [(c["rule"], c["status"]) for c in pending] == [("bull_advocate", None)]
        assert (await client.get("/_control/calls")).json() == []  # not answered yet

        await client.post("/_control/reset")
        answer = await asyncio.wait_for(held, timeout=5)

        assert answer.status_code == 200
        assert (await client.get("/_control/calls", params={"in_flight": True})).json() == []


async def test_a_call_whose_client_hangs_up_is_logged_abandoned_and_never_answered() -> None:
    app = create_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://fake") as client:
        await client.put("/_control/script", json=replies.with_role(replies.script(), "judge", latency_ms=30_000))
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        incoming.put_nowait({"type": "http.request", "body": json.dumps(_chat(replies.MATCH["judge"])).encode()})
        sent: list[dict[str, Any]] = []

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []}
        call = asyncio.create_task(app(scope, incoming.get, send))  # type: ignore[arg-type]
        for _ in range(100):
            if (await client.get("/_control/calls", params={"in_flight": True})).json():
                break
            await asyncio.sleep(0.01)

        incoming.put_nowait({"type": "http.disconnect"})
        await asyncio.wait_for(call, timeout=5)

        assert sent == []  # nobody to answer
        assert (await client.get("/_control/calls")).json() == []  # not an answered call
        abandoned = (await client.get("/_control/calls", params={"abandoned": True})).json()
        assert [(c["rule"], c["status"]) for c in abandoned] == [("judge", None)]
        assert abandoned[0]["abandoned"] >= abandoned[0]["started"]
