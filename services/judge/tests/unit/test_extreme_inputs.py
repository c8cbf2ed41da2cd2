"""Inputs at the edges of what the API document allows (found by the schemathesis run,
tests-e2e/test_schemathesis.py): a verdict, never a 500 - an ATR that rounds to 0 % of the price, prices near the
smallest float, a SELL whose take-profit would fall 100 % or more; and the documented symbol is the judge's."""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from judge_fakes import FakeJudgeAgent, make_input, make_proposal

from judge.application.guardrails import GuardrailPolicy
from judge.application.position_lots import size_in_lots
from judge.application.price_levels import price_levels
from judge.application.services.judge_service import JudgeService
from judge.domain.dtos.judge_input import _SYMBOL
from judge.domain.dtos.verdict_proposal import LevelProposal
from judge.domain.model.enums import Action, Direction
from judge.domain.model.risk import MAX_SELL_TAKE_PROFIT_PERCENT, volatility_from
from judge.main import create_app
from judge.settings import Settings
from shared_contracts.judge import JUDGE_TICKER_PATTERN, SYMBOL_BLANKS
from shared_contracts.judge import JudgeInput as JudgeInputBody

TINY = 5e-324  # the smallest positive float: a valid Price (> 0)


def test_an_atr_that_rounds_to_zero_percent_is_no_measure_of_volatility() -> None:
    assert volatility_from(TINY, 1e9, None) is None
    assert volatility_from(1e9, TINY, None) is None  # overflows to inf
    fallback = volatility_from(TINY, 1e9, 35.0)
    assert fallback is not None
    assert fallback.source == "realised"
    assert volatility_from(None, None, TINY) is None


async def test_a_sell_take_profit_of_100_percent_or_more_is_clamped_and_noted() -> None:
    proposal = make_proposal(action=Action.SELL, take_profit=LevelProposal(150.0, "far target"))
    service = JudgeService(FakeJudgeAgent(proposal), GuardrailPolicy(language="en"))
    verdict = await service.run(make_input(direction=Direction.BEARISH, reference_price=10.0))
    assert verdict.take_profit.percent_from_entry == -MAX_SELL_TAKE_PROFIT_PERCENT
    assert verdict.take_profit.price == pytest.approx(0.5)
    assert [n.rule for n in verdict.guardrail_adjustments] == ["sell_take_profit_clamped"]


def test_a_level_of_a_price_that_rounds_to_zero_is_zero() -> None:
    stop, take = price_levels(Action.BUY, LevelProposal(60.0, "s"), LevelProposal(20.0, "t"), TINY)
    assert stop.price == 0.0
    assert take.price == TINY


def test_no_share_count_is_given_for_a_price_too_small_to_count_shares() -> None:
    judge_input = make_input(reference_price=TINY, portfolio_value=1e15)
    assert size_in_lots(judge_input, Action.BUY, 10.0, "en") is None


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(analysis_engine="rules", log_json=False, _env_file=None))  # type: ignore[call-arg]
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        yield c


EDGES = [TINY, 1e-300, 1.0, 1e9, None]


async def test_the_rules_engine_answers_every_edge_of_the_price_ranges(client: httpx.AsyncClient) -> None:
    for atr, price, volatility, direction in itertools.product(
        EDGES, EDGES, [TINY, 1000.0, None], ["BULLISH", "BEARISH"]
    ):
        body: dict[str, Any] = {
            "symbol": "AAPL",
            "direction": direction,
            "confidence": 0.9,
            "bull_thesis": "",
            "bear_thesis": "",
            "atr": atr,
            "reference_price": price,
            "realised_volatility_pct": volatility,
            "portfolio_value": 1e15,
            "intrinsic_value_low": TINY,
            "intrinsic_value_high": 1e9,
            "key_levels": {"support": [TINY, 1e9], "resistance": [TINY, 1e9]},
        }
        response = await client.post("/api/v1/judge/verdict", json=body)
        assert response.status_code == 200, (body, response.text)


@pytest.mark.parametrize(
    "raw", ["AAPL", " ^GSPC ", "sh600519", "BRK=B:X", "a" * 32, "a" * 33, "", "  ", "$X", "é", "\x1cAAPL", "\u00a0AAPL"]
)
def test_the_documented_symbol_is_the_one_the_judge_accepts(raw: str) -> None:
    documented = JudgeInputBody.model_json_schema()["properties"]["symbol"]["pattern"]
    assert documented == rf"^[ \t\n\r\f\v]*{JUDGE_TICKER_PATTERN}[ \t\n\r\f\v]*$"
    kept = raw.strip(SYMBOL_BLANKS)
    assert bool(re.search(documented, raw)) is bool(kept and _SYMBOL.match(kept))
