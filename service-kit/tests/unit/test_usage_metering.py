"""Usage metering and token budgets of the LLM client (issue 41): what a call used is recorded on the request's
meter (reported, or estimated and marked so); a spent budget stops the next call before it is sent, and the rules
fallback does not stand in for it; the usage models sum and price what they hold. A peer honours a budget only from
the coordinator, capped at its own (issue 53)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from contract_testkit import completion_body, mock_chat
from fastapi import FastAPI
from starlette.requests import Request

from service_kit.api_keys import LOCAL_CLIENT, Client
from service_kit.llm.fallback import RulesFallback
from service_kit.llm.usage_meter import current_meter, estimate_tokens, metering
from service_kit.token_budget import TokenBudgetPolicy, metered_request, request_budgets
from shared_contracts.errors import LLMOutputParseError, ModelCallsNotAllowedError, TokenBudgetExhaustedError
from shared_contracts.usage import LLMUsage, ModelPrice, cost_of, research_usage


def answering(usage: tuple[int, int] | None, content: str = '{"ok": true}', **extra: Any) -> Any:
    sent: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json=completion_body(content, usage=usage, **extra))

    return handler, sent


async def test_each_call_adds_the_usage_the_endpoint_reported() -> None:
    handler, _ = answering((120, 30), model="m1")  # the model the reply names
    chat = mock_chat(handler)
    with metering() as meter:
        await chat.complete("p", "s", 0.0)
        await chat.complete("p", "s", 0.0)
    assert meter.usage == LLMUsage(llm_calls=2, input_tokens=240, output_tokens=60, estimated=False, model="m1")
    assert current_meter() is None  # the meter belongs to the block


async def test_usage_the_endpoint_does_not_report_is_estimated_from_the_texts() -> None:
    prompt, answer = "x" * 40, '{"a": "价格上涨"}'
    handler, _ = answering(None, content=answer)
    with metering() as meter:
        await mock_chat(handler).complete(prompt, None, 0.0)
    assert meter.usage.estimated is True
    assert meter.usage.input_tokens == estimate_tokens(prompt) == 10
    assert meter.usage.output_tokens == estimate_tokens(answer) == 4 + 3  # four CJK characters, 10 others / 4


async def test_a_cut_off_reply_still_counts_what_it_used() -> None:
    handler, _ = answering((50, 500), finish_reason="length")
    with metering() as meter, pytest.raises(LLMOutputParseError):
        await mock_chat(handler).complete("p", None, 0.0)
    assert (meter.usage.llm_calls, meter.usage.tokens) == (1, 550)


async def test_a_spent_budget_stops_the_next_call_before_it_is_sent() -> None:
    handler, sent = answering((80, 30))
    chat = mock_chat(handler)
    with metering(budget=100) as meter:
        await chat.complete("p", None, 0.0)  # 0 used of 100: allowed (and goes past it)
        with pytest.raises(TokenBudgetExhaustedError) as raised:
            await chat.complete("p", None, 0.0)
    assert len(sent) == 1
    assert raised.value.code == "token_budget_exhausted"
    assert meter.usage.tokens == 110


async def test_parallel_calls_share_the_request_s_meter() -> None:
    handler, _ = answering((10, 5))
    chat = mock_chat(handler)
    with metering() as meter:
        await asyncio.gather(chat.complete("bull", None, 0.0), chat.complete("bear", None, 0.0))
    assert meter.usage.llm_calls == 2


async def test_the_rules_fallback_does_not_stand_in_for_a_spent_budget() -> None:
    handler, sent = answering((10, 5))
    chat = mock_chat(handler)
    rules_called: list[str] = []

    async def llm(given: str) -> Any:
        await chat.complete(given, None, 0.0)
        raise AssertionError("the budget should have stopped the call")

    async def rules(given: str) -> Any:
        rules_called.append(given)
        raise AssertionError("no fallback for a spent budget")

    with metering(budget=0), pytest.raises(TokenBudgetExhaustedError):
        await RulesFallback(llm, rules)("p")
    assert sent == []
    assert rules_called == []


def test_a_failed_request_carries_its_usage_in_its_problem() -> None:
    def spend_then_call() -> None:
        with metered_request(5) as meter:
            meter.record(LLMUsage(llm_calls=1, input_tokens=4, output_tokens=3, model="m"))
            meter.check()

    with pytest.raises(TokenBudgetExhaustedError) as raised:
        spend_then_call()
    assert raised.value.problem_extra is not None
    assert raised.value.problem_extra["usage"]["input_tokens"] == 4


def test_research_usage_counts_carried_stages_in_the_total_only_and_prices_it() -> None:
    stages = {
        "technical_analyst": LLMUsage(llm_calls=1, input_tokens=1000, output_tokens=100, model="m"),
        "debate": LLMUsage(llm_calls=3, input_tokens=3000, output_tokens=300, model="m"),
        "judge": LLMUsage(),  # the rules engine: no call
    }
    prices = {"m": ModelPrice(input=2.0, output=8.0)}
    usage = research_usage(stages, carried=["technical_analyst"], prices=prices, token_budget=None, budget_exhausted=[])
    assert (usage.total.llm_calls, usage.total.tokens) == (4, 4400)
    assert (usage.new.llm_calls, usage.new.tokens) == (3, 3300)
    assert usage.cost == pytest.approx((4000 * 2.0 + 400 * 8.0) / 1e6)
    assert cost_of(stages["debate"], {}) is None  # no price for the model: no cost claimed
    assert research_usage(stages, carried=[], prices={}, token_budget=None, budget_exhausted=[]).cost is None


def _request(client: Client | None, policy: TokenBudgetPolicy) -> Request:
    app = FastAPI()
    app.state.token_budget_policy = policy
    return Request({"type": "http", "app": app, "state": {"client": client}, "headers": []})


ALICE = Client("alice", frozenset({"research"}))
ADMIN = Client("ops", frozenset({"admin"}))
COORDINATOR = Client("coordinator", frozenset({"service"}))
LLM_PEER = TokenBudgetPolicy("debate", cap=1_500, model_calls=True)


async def test_only_the_coordinators_budget_is_honoured_and_never_above_the_cap() -> None:
    for trusted in (COORDINATOR, LOCAL_CLIENT):  # LOCAL_CLIENT: every caller with AUTH_MODE=none
        budgets = await request_budgets(_request(trusted, LLM_PEER))
        assert (budgets.grant(999_999_999_999), budgets.grant(700), budgets.grant(None)) == (1_500, 700, 1_500)
    allowed = TokenBudgetPolicy("debate", cap=1_500, model_calls=True, clients_allowed=True)
    for client in (ALICE, ADMIN):
        budgets = await request_budgets(_request(client, allowed))
        assert (budgets.grant(999_999_999_999), budgets.grant(0), budgets.grant(None)) == (1_500, 1_500, 1_500)


async def test_a_client_key_is_refused_model_calls_unless_allowed_or_there_are_none() -> None:
    for client in (ALICE, ADMIN, None):
        with pytest.raises(ModelCallsNotAllowedError) as refused:
            await request_budgets(_request(client, LLM_PEER))
        assert refused.value.code == "model_calls_not_allowed"
    rules_peer = TokenBudgetPolicy("debate", cap=1_500, model_calls=False)  # the rules engine calls no model
    assert (await request_budgets(_request(ALICE, rules_peer))).grant(5) == 1_500
