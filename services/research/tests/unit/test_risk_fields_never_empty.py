"""Issue 38: an LLM expert's empty risk list says, in words, that no specific risk was seen."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from research.infrastructure.agents.llm_agent import _risk_said
from shared_contracts.text import NO_SPECIFIC_RISK


class _Verdict(BaseModel):
    risk_warning: str = "x"
    risk_factors: list[str] = []
    key_risks: list[str] = []


@pytest.mark.parametrize("language", ["zh", "en"])
def test_empty_or_blank_risk_lists_say_no_specific_risk_was_seen(language: str) -> None:
    said = _risk_said(_Verdict(risk_warning=" ", risk_factors=[], key_risks=["  "]), language)
    assert said.risk_warning == NO_SPECIFIC_RISK[language]
    assert said.risk_factors == [NO_SPECIFIC_RISK[language]]
    assert said.key_risks == [NO_SPECIFIC_RISK[language]]


def test_named_risks_are_kept_as_they_are() -> None:
    verdict = _Verdict(risk_warning="high PE", risk_factors=["high PE"], key_risks=["PMI below 50"])
    assert _risk_said(verdict, "en") == verdict
