"""POST /api/v1/judge/verdict through the real app (lifespan entered, ASGI transport)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import httpx2
import pytest
from contract_testkit import chat_completion as contract_chat_completion
from fastapi import FastAPI
from judge_fakes import FakeJudgeAgent, RecordingLLMEndpoint, SpyJudgeAgent, chat_completion, llm_answer, wire_body

from judge.container import JudgeContainer, build_container
from judge.main import create_app
from judge.settings import Settings
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.judge import Verdict

LLM_ENV = {"analysis_engine": "llm", "llm_base_url": "http://llm.test/v1", "llm_model": "judge-model"}


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {"analysis_engine": "rules", "log_json": False, "_env_file": None}
    values.update(overrides)
    return Settings(**values)


async def open_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async for c in open_client(create_app(settings())):
        yield c


async def client_with(container: JudgeContainer) -> AsyncIterator[httpx.AsyncClient]:
    async for c in open_client(create_app(container.settings, container=container)):
        yield c


async def post_with_agent(agent: Any, body: dict[str, Any] | None = None) -> httpx.Response:
    container = build_container(settings(), agent=agent)
    async for c in client_with(container):
        return await c.post("/api/v1/judge/verdict", json=body or wire_body())
    raise AssertionError("unreachable")


async def test_rules_verdict(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/judge/verdict", json=wire_body(reference_price=20.0, atr=0.5))
    assert response.status_code == 200
    verdict = Verdict.model_validate(response.json())
    assert verdict.action == "BUY"
    assert 0 < verdict.position_percent <= 30
    assert verdict.stop_loss.price is not None
    assert verdict.stop_loss.price < 20.0
    assert verdict.take_profit.price is not None
    assert verdict.take_profit.price > 20.0
    assert verdict.engine.kind == "rules"
    assert verdict.guardrail_adjustments == []
    assert "X-Request-ID".lower() in response.headers


async def test_what_the_engine_receives_is_the_request() -> None:
    spy = SpyJudgeAgent(FakeJudgeAgent())
    body = wire_body(symbol=" 600519.sh ", reference_price=1500.5, key_levels={"support": [1400], "resistance": []})
    response = await post_with_agent(spy, body)
    assert response.status_code == 200
    (received,) = spy.received
    assert received.symbol == "600519.SH"
    assert received.direction.value == "BULLISH"
    assert received.risk_factors == ["需求放缓", "政策风险"]
    assert received.reference_price == 1500.5
    assert received.key_levels.support == [1400.0]
    assert response.json()["symbol"] == "600519.SH"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (wire_body(direction="UP"), "direction"),
        (wire_body(direction="bullish"), "direction"),
        (wire_body(confidence=1.2), "confidence"),
        (wire_body(confidence=-0.1), "confidence"),
        ({k: v for k, v in wire_body().items() if k != "symbol"}, "symbol"),
        (wire_body(symbol=""), "symbol"),
        (wire_body(bull_case={"supporting_arguments": []}), "bull_case"),
        (wire_body(reference_price=0), "reference_price"),
        (wire_body(reference_price=1e300), "reference_price"),
        (wire_body(reference_price="1500"), "reference_price"),
        (wire_body(confidence="0.7"), "confidence"),
        (wire_body(confidence=True), "confidence"),
        (wire_body(key_levels={"support": [-5.0], "resistance": []}), "key_levels"),
        (wire_body(key_levels={"support": ["1400"], "resistance": []}), "key_levels"),
    ],
    ids=["unknown-direction", "lowercase-direction", "confidence>1", "confidence<0", "no-symbol", "empty-symbol",
         "unknown-field", "zero-price", "absurd-price", "price-as-string", "confidence-as-string",
         "confidence-as-bool", "negative-level", "level-as-string"],
)  # fmt: skip
async def test_invalid_input_is_400(client: httpx.AsyncClient, body: dict[str, Any], field: str) -> None:
    response = await client.post("/api/v1/judge/verdict", json=body)
    assert response.status_code == 400
    problem = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    assert problem["code"] == "invalid_request"
    assert field in problem["detail"]


@pytest.mark.parametrize(("symbol", "code"), [("   ", "symbol_required"), ("AAPL; DROP", "invalid_symbol")])
async def test_domain_symbol_checks_are_400(client: httpx.AsyncClient, symbol: str, code: str) -> None:
    response = await client.post("/api/v1/judge/verdict", json=wire_body(symbol=symbol))
    assert response.status_code == 400
    assert response.json()["code"] == code


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/judge/verdict", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"


async def test_llm_output_parse_error_is_500_with_the_error() -> None:
    error = LLMOutputParseError("the model output is not a JSON object (Expecting value)", raw_output="I'd buy")
    response = await post_with_agent(FakeJudgeAgent(error=error))
    assert response.status_code == 500
    problem = response.json()
    assert problem["code"] == "llm_output_invalid"
    assert "not a JSON object" in problem["detail"]
    assert problem["raw_output_excerpt"] == "I'd buy"


async def test_a_buy_on_a_bearish_debate_is_answered_as_a_hold() -> None:
    response = await post_with_agent(FakeJudgeAgent(), wire_body(direction="BEARISH", confidence=0.8))
    assert response.status_code == 200
    verdict = Verdict.model_validate(response.json())
    assert (verdict.action, verdict.position_percent) == ("HOLD", 0.0)
    (note,) = verdict.guardrail_adjustments
    assert note.rule == "debate_side"
    assert "BUY proposed on a BEARISH debate outcome" in note.detail


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (LLMUnavailableError("down"), 503, "llm_unavailable"),
        (LLMTimeoutError("slow"), 504, "llm_timeout"),
        (LLMUpstreamError("refused"), 502, "llm_upstream_error"),
    ],
)
async def test_llm_call_failures_map_to_gateway_statuses(error: Exception, status: int, code: str) -> None:
    response = await post_with_agent(FakeJudgeAgent(error=error))
    assert response.status_code == status
    assert response.json()["code"] == code


async def test_unexpected_agent_bug_is_a_generic_500() -> None:
    response = await post_with_agent(FakeJudgeAgent(error=RuntimeError("bug")))
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"


async def test_llm_engine_end_to_end_with_guardrail_visible() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer(position_percent=45))))
    container = build_container(settings(**LLM_ENV), llm_http_client=endpoint.client())
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body(reference_price=100.0, atr=2.0))
    await container.aclose()
    assert response.status_code == 200
    body = response.json()
    assert body["engine"] == {"kind": "llm", "model": "judge-model", "fallback_reason": None}
    assert body["position_percent"] == 14.28  # 45 → the 30 % cap → what risks 1 % at the 7 % stop
    assert body["guardrail_adjustments"][0]["rule"] == "position_clamped"


@pytest.mark.parametrize(("asked", "named"), [("en", "English"), ("zh", "简体中文")])
async def test_the_llm_judge_is_told_the_language_the_request_names(asked: str, named: str) -> None:
    """Issue 51: the prompt names the request's language; REPORT_LANGUAGE is the other one here."""
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(json.dumps(llm_answer())))
    other = "zh" if asked == "en" else "en"
    container = build_container(settings(**LLM_ENV, report_language=other), llm_http_client=endpoint.client())
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body(reference_price=100.0, atr=2.0, language=asked))
    await container.aclose()
    assert response.status_code == 200, response.text
    prompt = endpoint.messages()["system"] + endpoint.messages()["user"]
    assert named in prompt
    assert ("Simplified Chinese" in prompt) is (asked == "zh")


async def test_an_answer_cut_off_at_its_length_limit_keeps_what_the_model_wrote() -> None:
    cut = '{"action": "BUY", "position_percent": 10, "reasoning": "the trend'
    endpoint = RecordingLLMEndpoint(lambda _r: contract_chat_completion(cut, "judge-model", finish_reason="length"))
    container = build_container(settings(**LLM_ENV), llm_http_client=endpoint.client())
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body())
    await container.aclose()
    assert response.status_code == 500, response.text
    problem = response.json()
    assert (problem["code"], problem["raw_output_excerpt"]) == ("llm_output_invalid", cut)
    assert "finish_reason=length" in problem["detail"]


@pytest.mark.parametrize(
    ("answer", "policy", "detail"),
    [
        ("I'd buy", "repair", "the model output is not a JSON object"),
        (json.dumps(llm_answer(reasoning="目标价 98765.43 元")), "reject", "figure(s) not in its input: "),
    ],
    ids=["prose", "figures-refused"],
)
async def test_an_unusable_answer_of_the_llm_engine_is_500_llm_output_invalid(
    answer: str, policy: str, detail: str
) -> None:
    """Whichever part of the engine refuses it (the parser, the numbers gate), the same problem."""
    endpoint = RecordingLLMEndpoint(lambda _r: chat_completion(answer))
    container = build_container(settings(**LLM_ENV, llm_numbers_policy=policy), llm_http_client=endpoint.client())
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body())
    await container.aclose()
    assert response.status_code == 500, response.text
    problem = response.json()
    assert (problem["code"], problem["raw_output_excerpt"][:7]) == ("llm_output_invalid", answer[:7])
    assert detail in problem["detail"]


async def test_fallback_to_rules_is_visible_in_the_engine_field() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: httpx2.Response(500, json={"error": {"message": "boom"}}))
    container = build_container(
        settings(**LLM_ENV, llm_fallback_to_rules=True, llm_max_retries=0), llm_http_client=endpoint.client()
    )
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body())
    await container.aclose()
    assert response.status_code == 200
    engine = response.json()["engine"]
    assert engine["kind"] == "rules"
    assert "llm_unavailable" in engine["fallback_reason"]


async def test_without_fallback_an_unavailable_llm_is_503() -> None:
    endpoint = RecordingLLMEndpoint(lambda _r: httpx2.Response(503, json={"error": {"message": "overloaded"}}))
    container = build_container(settings(**LLM_ENV, llm_max_retries=0), llm_http_client=endpoint.client())
    async for c in client_with(container):
        response = await c.post("/api/v1/judge/verdict", json=wire_body())
    await container.aclose()
    assert response.status_code == 503


async def test_health_readiness_metrics_and_openapi(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok", "service": "judge"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"judge_service": "ok"}
    await client.post("/api/v1/judge/verdict", json=wire_body())
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200
    # The kit's Instrumentator uses prometheus' process-wide registry, so in a full test run the first app
    # built owns the series; assert on the exposition, not on this app's handler label.
    assert "http_request_duration_seconds" in metrics.text
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "/api/v1/judge/verdict" in paths


async def test_readiness_is_503_before_the_lifespan() -> None:
    app = create_app(settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        response = await c.get("/readyz")
    assert response.status_code == 503


async def test_lifespan_builds_and_closes_its_own_container() -> None:
    app = create_app(settings(**LLM_ENV))
    async with app.router.lifespan_context(app):
        built = app.state.container
        assert built.settings.llm_model == "judge-model"
        assert built.chat is not None  # the OpenAI-compatible client it opened
    assert built.chat._client.is_closed()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"atr": 0}, "atr"),
        ({"atr": "31.5"}, "atr"),
        ({"realised_volatility_pct": -5.0}, "realised_volatility_pct"),
        ({"realised_volatility_pct": 5000.0}, "realised_volatility_pct"),
        ({"evidence_horizon": "SOON"}, "evidence_horizon"),
        ({"intrinsic_value_low": 1800.0, "intrinsic_value_high": 1600.0}, "intrinsic_value_low"),
        ({"portfolio_value": 0}, "portfolio_value"),
        ({"portfolio_value": True}, "portfolio_value"),
    ],
    ids=["zero-atr", "atr-as-string", "negative-volatility", "volatility-as-fraction-x100", "unknown-horizon",
         "range-upside-down", "zero-portfolio", "portfolio-as-bool"],
)  # fmt: skip
async def test_invalid_volatility_valuation_or_portfolio_is_400(
    client: httpx.AsyncClient, overrides: dict[str, Any], field: str
) -> None:
    response = await client.post("/api/v1/judge/verdict", json=wire_body(**overrides))
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert field in response.json()["detail"]


async def test_a_verdict_in_units_of_volatility_with_lots(client: httpx.AsyncClient) -> None:
    body = wire_body(
        reference_price=1500.0,
        atr=30.0,
        realised_volatility_pct=28.0,
        evidence_horizon="LONG_TERM",
        intrinsic_value_low=1700.0,
        intrinsic_value_high=2100.0,
        portfolio_value=5_000_000.0,
    )
    response = await client.post("/api/v1/judge/verdict", json=body)
    assert response.status_code == 200
    verdict = Verdict.model_validate(response.json())
    assert verdict.action == "BUY"
    assert verdict.stop_loss.percent_from_entry == -8.0  # 2 × √6 = 4.9 ATR for 120 days, held at 4 ATR of 2 %
    # the range's low end (13.3 %) is inside the 2 × 8 % floor; its high end is 5 × the stop
    assert verdict.take_profit.percent_from_entry == pytest.approx(40.0)
    assert verdict.take_profit.price == 2100.0
    assert verdict.time_horizon == "LONG_TERM"
    # 1 % × 0.6 × 0.8 = 0.48 % at risk / 8 % = 6 %; 300,000 / 1500 = 200 shares = 2 lots: 6 % exactly
    assert verdict.position_shares == 200
    assert verdict.position_percent == 6.0
    assert "200 股（2 手，每手 100 股）" in verdict.entry_strategy
    assert verdict.guardrail_adjustments == []


async def test_the_new_fields_reach_the_engine() -> None:
    spy = SpyJudgeAgent(FakeJudgeAgent())
    body = wire_body(
        atr=12.5, realised_volatility_pct=31.0, evidence_horizon="SHORT_TERM", intrinsic_value_low=1.5,
        intrinsic_value_high=2.5, portfolio_value=1e6,
    )  # fmt: skip
    response = await post_with_agent(spy, body)
    assert response.status_code == 200
    (received,) = spy.received
    assert (received.atr, received.realised_volatility_pct) == (12.5, 31.0)
    assert received.evidence_horizon is not None
    assert received.evidence_horizon.value == "SHORT_TERM"
    assert received.valuation_bounds == (1.5, 2.5)
    assert received.portfolio_value == 1e6
    assert response.json()["position_shares"] is None  # no reference price


CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH_DEBATE = {
    "bull_thesis": "Cheap against its intrinsic value.",
    "bear_thesis": "The industry cycle is turning down.",
    "risk_factors": ["Demand slows", "Policy risk"],
    "key_disagreements": ["Whether the valuation is fair"],
    "conflict_resolution": "The bulls lead slightly.",
    "reference_price": 20.0,
    "atr": 0.5,
}
"""A debate written in English: what the verdict quotes of it is English too."""


def _narrative(verdict: dict[str, Any]) -> list[str]:
    levels = [verdict[name]["basis"] for name in ("stop_loss", "take_profit")]
    return [verdict["reasoning"], verdict["entry_strategy"], *verdict["risk_warnings"], *levels]


@pytest.mark.parametrize("configured", ["zh", "en"])
async def test_the_verdict_is_written_in_the_requests_language_whatever_the_service_default(configured: str) -> None:
    async for c in open_client(create_app(settings(report_language=configured))):
        english = await c.post("/api/v1/judge/verdict", json=wire_body(**ENGLISH_DEBATE, language="en"))
        chinese = await c.post("/api/v1/judge/verdict", json=wire_body(**ENGLISH_DEBATE, language="zh"))
        default = await c.post("/api/v1/judge/verdict", json=wire_body(**ENGLISH_DEBATE))
    assert english.status_code == chinese.status_code == default.status_code == 200
    assert not any(CJK.search(text) for text in _narrative(english.json()))
    assert all(CJK.search(text) for text in (chinese.json()["reasoning"], chinese.json()["entry_strategy"]))
    assert default.json()["reasoning"] == (english if configured == "en" else chinese).json()["reasoning"]
    assert english.json()["reference_price"] == chinese.json()["reference_price"] == 20.0


@pytest.mark.parametrize("language", ["fr", "EN", "", 1])
async def test_a_language_other_than_zh_or_en_is_a_400_invalid_language(
    client: httpx.AsyncClient, language: object
) -> None:
    response = await client.post("/api/v1/judge/verdict", json=wire_body(language=language))
    assert response.status_code == 400
    assert response.json()["code"] == ("invalid_language" if isinstance(language, str) else "invalid_request")


async def test_a_bulk_item_in_no_known_language_is_a_400_naming_it(client: httpx.AsyncClient) -> None:
    items = [wire_body(language="en"), wire_body(language="de")]
    response = await client.post("/api/v1/judge/verdict/bulk", json={"items": items})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_language"
