"""shared_contracts.judge: the issue 28 fields are optional and additive, and checked at the edge."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from shared_contracts.judge import JudgeInput, Verdict

BASE: dict[str, Any] = {
    "symbol": "600519.SH",
    "direction": "BULLISH",
    "confidence": 0.8,
    "bull_thesis": "估值低于内在价值",
    "bear_thesis": "行业景气度下行",
}


def test_the_volatility_valuation_and_portfolio_fields_are_optional() -> None:
    judge_input = JudgeInput.model_validate(BASE)
    assert judge_input.atr is None
    assert judge_input.realised_volatility_pct is None
    assert judge_input.evidence_horizon is None
    assert judge_input.intrinsic_value_low is None
    assert judge_input.intrinsic_value_high is None
    assert judge_input.portfolio_value is None
    assert "atr" not in judge_input.model_dump(exclude_none=True)


def test_the_fields_round_trip() -> None:
    values = {
        "atr": 31.5,
        "realised_volatility_pct": 28,
        "evidence_horizon": "LONG_TERM",
        "intrinsic_value_low": 1600,
        "intrinsic_value_high": 1900.0,
        "portfolio_value": 1_000_000,
    }
    judge_input = JudgeInput.model_validate({**BASE, **values})
    assert judge_input.model_dump(mode="json", include=set(values)) == values


@pytest.mark.parametrize(
    "values",
    [
        {"atr": 0},
        {"atr": "31.5"},
        {"realised_volatility_pct": 0.0},
        {"realised_volatility_pct": 1500.0},
        {"evidence_horizon": "long"},
        {"intrinsic_value_low": 2.0, "intrinsic_value_high": 1.0},
        {"portfolio_value": -1.0},
        {"portfolio_value": float("inf")},
    ],
)
def test_bad_values_are_refused(values: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        JudgeInput.model_validate({**BASE, **values})


def test_position_shares_is_an_additive_field() -> None:
    verdict = {
        "symbol": "600519.SH",
        "action": "BUY",
        "position_percent": 12.0,
        "confidence": 0.7,
        "entry_strategy": "two tranches",
        "stop_loss": {"percent_from_entry": -4.0, "basis": "2 ATR"},
        "take_profit": {"percent_from_entry": 8.0, "basis": "2R"},
        "time_horizon": "MEDIUM_TERM",
        "risk_warnings": [],
        "reasoning": "r",
        "engine": {"kind": "rules"},
    }
    assert Verdict.model_validate(verdict).position_shares is None  # a reply of an older judge
    assert Verdict.model_validate({**verdict, "position_shares": 400}).position_shares == 400
    with pytest.raises(ValidationError):
        Verdict.model_validate({**verdict, "position_shares": -100})
