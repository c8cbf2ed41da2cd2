"""The scorecard's engine filter as the API document states it (``ENGINE_FILTER_PATTERN``) is the one
``ScorecardQuery.parse`` applies: blank, or printable ASCII of at most 128 characters once stripped."""

from __future__ import annotations

import re

import pytest

from coordinator.application.dtos.scorecard import ENGINE_FILTER_PATTERN, MAX_ENGINE_LENGTH, ScorecardQuery
from coordinator.domain.exceptions import ScorecardEngineError

ENGINES = [
    "rules",
    " qwen2.5:7b ",
    "deepseek/deepseek-chat",
    "",
    " \u3000",
    "a" * MAX_ENGINE_LENGTH,
    " " + "a" * MAX_ENGINE_LENGTH + "\t",
    "a" * (MAX_ENGINE_LENGTH + 1),
    "gpt\u200b4",  # a format character: not printable
    "modèle",  # printable, not ASCII
    "a\tb",
]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_documented_engine_filter_is_the_one_applied(engine: str) -> None:
    try:
        ScorecardQuery.parse(engine=engine)
    except ScorecardEngineError:
        accepted = False
    else:
        accepted = True
    assert bool(re.search(ENGINE_FILTER_PATTERN, engine)) is accepted
