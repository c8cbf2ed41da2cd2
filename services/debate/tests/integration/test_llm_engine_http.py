"""The LLM engine end to end in-process: container → LLMAdapter → OpenAICompatibleChat over a mock transport
(openai 3 uses httpx2), behind the real endpoint."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import httpx2
import pytest
from contract_testkit import chat_completion, mock_chat, mock_llm_http_client
from debate_fakes import BEAR_JSON, BULK_SENTINELS, BULL_JSON, RESOLUTION_JSON, raw_research_results
from debate_http import RecordingLLMServer, debate_client, llm_completion, llm_settings

from debate.container import build_container
from debate.infrastructure.adapters.llm_adapter import LLMAdapter

URL = "/api/v1/debate/run"
Handler = Callable[[httpx2.Request], httpx2.Response]


async def post_debate(handler: Handler, **settings: Any) -> httpx.Response:
    """POST a debate of the raw research results to a debate app whose LLM engine ``handler`` answers."""
    container = build_container(llm_settings(**settings), llm_http_client=mock_llm_http_client(handler))
    try:
        async with debate_client(container=container) as (client, _):
            return await client.post(URL, json={"symbol": "600519.SH", "expert_results": raw_research_results()})
    finally:
        await container.aclose()


async def test_llm_adapter_delegates_to_the_openai_compatible_client_and_returns_its_text() -> None:
    server = RecordingLLMServer({"SYS": "the answer"})
    adapter = LLMAdapter(mock_chat(server, model="m", api_key="k"))
    try:
        text = await adapter.generate("the prompt", "SYS", 0.3)
    finally:
        await adapter.aclose()
    assert text == "the answer"
    (request,) = server.requests
    assert request["url"] == "http://llm.test/v1/chat/completions"
    assert request["body"]["messages"] == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "the prompt"},
    ]
    assert request["body"]["temperature"] == 0.3
    assert adapter.model == "m"


async def test_llm_engine_debate_over_http_fills_prompts_and_filters_bulk_fields() -> None:
    server = RecordingLLMServer()
    response = await post_debate(server)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["engine"] == {"kind": "llm", "model": "test-model", "fallback_reason": None}
    assert body["direction"] == "BULLISH"
    assert body["confidence"] == 0.62
    assert body["bear_case"]["acknowledged_strengths"] == ["技术面强势"]
    assert len(server.requests) == 3
    roles = [r["body"]["messages"][0]["content"].split(" in a structured")[0] for r in server.requests]
    assert set(roles[:2]) == {"You are the BULL ADVOCATE", "You are the BEAR ADVOCATE"}
    assert roles[2].startswith("You are the RESOLUTION JUDGE"), "the resolution runs last"
    for request in server.requests:
        assert request["body"]["model"] == "test-model"
        assert request["body"]["response_format"] == {"type": "json_object"}
        prompt = request["body"]["messages"][1]["content"]
        assert "600519.SH" in prompt
        assert "{{" not in prompt
        for field, sentinel in BULK_SENTINELS.items():
            assert sentinel not in prompt, field
    advocate_prompts = [r["body"]["messages"][1]["content"] for r in server.requests[:2]]
    for prompt in advocate_prompts:
        assert "应收账款增速高于营收增速，经营现金流下滑" in prompt
        assert "catalyst_detective" in prompt


@pytest.mark.parametrize(
    ("handler", "status", "code"),
    [
        (lambda _r: httpx2.Response(500, json={"error": {"message": "boom"}}), 503, "llm_unavailable"),
        (lambda r: (_ for _ in ()).throw(httpx2.ConnectError("refused", request=r)), 503, "llm_unavailable"),
        (lambda r: (_ for _ in ()).throw(httpx2.ReadTimeout("slow", request=r)), 504, "llm_timeout"),
        (lambda _r: httpx2.Response(401, json={"error": {"message": "bad key"}}), 502, "llm_upstream_error"),
        (lambda _r: llm_completion("no json here"), 500, "llm_output_invalid"),
    ],
)
async def test_llm_failures_map_to_http(handler: Handler, status: int, code: str) -> None:
    response = await post_debate(handler)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


async def test_an_answer_cut_off_at_its_length_limit_names_the_agent_and_keeps_what_it_wrote() -> None:
    cut = '{"core_thesis": "the trend'

    def handler(request: httpx2.Request) -> httpx2.Response:
        system = json.loads(request.content)["messages"][0]["content"]
        if "BEAR ADVOCATE" in system:
            return chat_completion(cut, finish_reason="length")
        return RecordingLLMServer()(request)

    response = await post_debate(handler)
    assert response.status_code == 500, response.text
    problem = response.json()
    assert (problem["code"], problem["agent"], problem["raw_output_excerpt"]) == (
        "llm_output_invalid",
        "bear_advocate",
        cut,
    )
    assert "finish_reason=length" in problem["detail"]


async def test_fallback_to_rules_is_visible_in_the_engine_field() -> None:
    response = await post_debate(
        lambda _r: httpx2.Response(503, json={"error": {"message": "overloaded"}}), llm_fallback_to_rules=True
    )
    assert response.status_code == 200, response.text
    engine = response.json()["engine"]
    assert engine["kind"] == "rules"
    assert engine["fallback_reason"].startswith("llm_unavailable: ")


async def test_figures_refused_by_the_numbers_gate_are_llm_output_invalid_naming_the_agent_once() -> None:
    """LLM_NUMBERS_POLICY=reject: the gate's refusal is the same problem as an unparseable answer."""
    invented = BULL_JSON.replace("技术面与估值共振，看多", "技术面与估值共振，目标价 98765.43 元")
    response = await post_debate(
        RecordingLLMServer({"BULL ADVOCATE": invented, "BEAR ADVOCATE": BEAR_JSON, "RESOLUTION": RESOLUTION_JSON}),
        llm_numbers_policy="reject",
    )
    assert response.status_code == 500, response.text
    problem = response.json()
    assert (problem["code"], problem["agent"]) == ("llm_output_invalid", "bull_advocate")
    assert problem["detail"].startswith("bull_advocate: the model's answer holds 1 figure(s) not in its input")
    assert problem["detail"].count("bull_advocate") == 1
    assert "98765.43" in problem["detail"]
    assert "98765.43" in problem["raw_output_excerpt"]


async def test_an_argument_citing_an_unheard_expert_names_the_agent_once() -> None:
    unheard = BULL_JSON.replace('["valuation_modeler"]', '["warren_buffett"]')
    response = await post_debate(
        RecordingLLMServer({"BULL ADVOCATE": unheard, "BEAR ADVOCATE": BEAR_JSON, "RESOLUTION": RESOLUTION_JSON})
    )
    assert response.status_code == 500, response.text
    problem = response.json()
    assert (problem["code"], problem["agent"]) == ("llm_output_invalid", "bull_advocate")
    assert problem["detail"].startswith("bull_advocate: source_experts cites experts not in the input: warren_buffett")
    assert problem["detail"].count("bull_advocate") == 1


@pytest.mark.parametrize("asked", ["en", "zh"])
async def test_every_agent_is_told_the_language_the_request_names(asked: str) -> None:
    """Issue 51: the bull, the bear and the resolution prompts name the request's language, not REPORT_LANGUAGE."""
    server = RecordingLLMServer()
    other = "zh" if asked == "en" else "en"
    container = build_container(llm_settings(report_language=other), llm_http_client=mock_llm_http_client(server))
    try:
        async with debate_client(container=container) as (client, _):
            body = {"symbol": "600519.SH", "expert_results": raw_research_results(), "language": asked}
            response = await client.post(URL, json=body)
    finally:
        await container.aclose()
    assert response.status_code == 200, response.text
    systems = [r["body"]["messages"][0]["content"] + r["body"]["messages"][1]["content"] for r in server.requests]
    assert len(systems) == 3
    assert all(("Simplified Chinese" in prompt) is (asked == "zh") for prompt in systems)
