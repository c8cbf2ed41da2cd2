"""What the API documents say an input is, and what the services accept, are the same (the schemathesis run of
tests-e2e/test_schemathesis.py generates requests from the documents: a valid one must be accepted, an invalid
one refused)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from shared_contracts.coordinator import ResearchRequestBody
from shared_contracts.debate import DebateRunRequest
from shared_contracts.experts import ISO_DATE_PATTERN, FinancialAuditorOptions, JsonInt, is_iso_date
from shared_contracts.projection import ExpertDataQuality
from shared_contracts.research import ExpertRunRequest
from shared_contracts.symbols import SYMBOL_FILTER_PATTERN, SYMBOL_PATTERN, SymbolSyntaxError, parse_symbol

SPELLINGS = [
    "600519.SH",
    " 000001.sz ",
    "430047.Bj",
    "700.HK",
    "\u3000600519.SH\n",  # blanks around it, Unicode ones included, are dropped
    "aapl",
    "BRK.b",
    "BRK-B",
    "",
    " ",
    "600519",
    "1234567.SH",
    "0700.HKG",
    "AB.HK",
    "TOOLONGTICKER",
    "６００５１９.SH",
    "ſpy",  # "ſ".upper() is "S"
    "ı",  # "ı".upper() is "I"
    "AAPL\x00",
    "A A",
]


def accepted(raw: str) -> bool:
    try:
        parse_symbol(raw)
    except SymbolSyntaxError:
        return False
    return True


@pytest.mark.parametrize("raw", SPELLINGS)
def test_the_symbol_pattern_is_the_grammar(raw: str) -> None:
    assert bool(re.search(SYMBOL_PATTERN, raw)) is accepted(raw)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=12), st.from_regex(SYMBOL_PATTERN)))
def test_the_symbol_pattern_is_the_grammar_for_any_text(raw: str) -> None:
    assert bool(re.search(SYMBOL_PATTERN, raw)) is accepted(raw)


def test_a_symbol_filter_is_a_symbol_or_blank() -> None:
    assert re.search(SYMBOL_FILTER_PATTERN, " \t")
    assert re.search(SYMBOL_FILTER_PATTERN, " 700.hk ")
    assert not re.search(SYMBOL_FILTER_PATTERN, "700.hkg")


@pytest.mark.parametrize("raw", ["2025-09-30", "2024-02-29", "2025-02-30", "2025-9-30", "20250930", " 2025-09-30"])
def test_an_iso_date_matches_the_pattern_and_names_a_real_day(raw: str) -> None:
    assert is_iso_date(raw) is (bool(re.search(ISO_DATE_PATTERN, raw)) and raw != "2025-02-30")


class Counted(BaseModel):
    n: JsonInt


@pytest.mark.parametrize(
    ("value", "ok"), [(5, True), (5.0, True), (-2, True), ("5", False), (True, False), (5.5, False)]
)
def test_a_json_integer_is_an_integer_in_json(value: object, ok: bool) -> None:
    if ok:
        assert Counted(n=value).n == int(value)  # type: ignore[arg-type,call-overload]
    else:
        with pytest.raises(ValidationError):
            Counted(n=value)  # type: ignore[arg-type]


def test_counts_and_limits_are_json_integers() -> None:
    assert ExpertDataQuality.model_validate({"data_gaps": 2.0, "staleness": 0}).data_gaps == 2
    assert FinancialAuditorOptions.model_validate({"limit": 3.0}).limit == 3
    with pytest.raises(ValidationError):
        ExpertDataQuality.model_validate({"data_gaps": False})


def properties(model: type[BaseModel]) -> tuple[dict[str, Any], list[str]]:
    schema = model.model_json_schema()
    return schema["properties"], schema.get("required", [])


def test_lenient_requests_are_documented_as_what_their_validation_requires() -> None:
    fields, required = properties(ResearchRequestBody)
    assert set(required) == {"symbol", "experts"}
    assert fields["symbol"]["pattern"] == SYMBOL_PATTERN
    assert fields["experts"]["minItems"] == 1
    assert fields["experts"]["uniqueItems"] is True
    assert ResearchRequestBody.model_validate({}).symbol is None  # each mistake still gets its own code

    fields, required = properties(DebateRunRequest)
    assert set(required) == {"symbol", "expert_results"}
    assert fields["expert_results"]["minProperties"] == 1
    assert DebateRunRequest.model_validate({}).expert_results is None

    fields, _ = properties(ExpertRunRequest)
    assert fields["symbol"]["pattern"] == SYMBOL_PATTERN
