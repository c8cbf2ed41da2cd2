"""The rules engines' narratives pass the LLM engine's numbers gate with no untraceable figure: every expert, every
symbol of the offline snapshot, three analysis dates, zh and en.

For a rules expert, its input is what it computed from: the facts (``result.input``), the numbers of its trace
(``result.output``: rule inputs, scores, weights; the notes, which are the narrative itself, left out) and its
method's constants (the numeric module constants of its rules module and of ``scoring``). The test runs
whatever the rules write, so it holds for figures the engines add later."""

from __future__ import annotations

import importlib
import json
from datetime import date
from typing import Any

import pytest

from research.container import build_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.settings import Settings
from service_kit.llm.numbers.gate import check_texts
from service_kit.llm.numbers.sources import sources_from
from shared_contracts.errors import ServiceError
from shared_contracts.experts import ExpertType
from shared_contracts.research import ExpertResultBase
from shared_contracts.standing import BOTTOM_RANK, TOP_RANK

DATES = [date(2023, 6, 30), date(2024, 6, 28), date(2025, 3, 31)]
AUDIT_FIELDS = set(ExpertResultBase.model_fields) | {"data_gaps", "staleness"}


def narrative_texts(result: dict[str, Any], structured: set[str]) -> dict[str, str]:
    """Every string of the result's headline fields (not the audit fields, not the indicator snapshots)."""
    texts: dict[str, str] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, str):
            texts[path] = value
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    for key, value in result.items():
        if key not in AUDIT_FIELDS and key not in structured:
            walk(value, key)
    return texts


def without_notes(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_notes(v) for k, v in value.items() if k != "note"}
    if isinstance(value, list):
        return [without_notes(v) for v in value]
    return value


def method_constants(expert: str) -> list[float]:
    constants = []
    for name in (f"research.infrastructure.rules.{expert}", "research.infrastructure.rules.scoring"):
        module = importlib.import_module(name)
        constants += [
            float(v)
            for k, v in vars(module).items()
            if k.isupper() and isinstance(v, int | float) and not isinstance(v, bool)
        ]
    return constants


VOTE_CONSTANTS = [TOP_RANK, BOTTOM_RANK, 2.0, 1.0, -1.0]
"""The standing vote's rule and its |2×p−1| (``research.application.standing_vote``)."""
STRUCTURED = {
    "key_technical_levels",
    "technical_indicators",
    "financial_indicators",
    "valuation_indicators",
    "estimated_intrinsic_value_range",
    "macro_indicators",
    "information_sources",
    "catalyst_context",
    "user_prompt",
    "raw_llm_output",
    "events",
    "news",
}


@pytest.mark.parametrize("language", ["zh", "en"])
async def test_every_rules_narrative_traces_to_its_input(snapshot: OfflineSnapshotProvider, language: str) -> None:
    settings = Settings(_env_file=None, analysis_engine="rules", report_language=language)  # type: ignore[call-arg]
    container = build_container(settings, provider=snapshot)
    symbols = await snapshot.available_symbols()
    assert symbols is not None
    assert len(symbols) >= 100
    runs = checked = 0
    untraceable: list[str] = []
    for symbol in symbols:
        for on in DATES:
            for expert in ExpertType:
                try:
                    result = await container.experts.run(expert.value, symbol, analysis_date=on)
                except ServiceError:
                    continue  # the snapshot's documented gaps
                facts = json.dumps(result["input"], ensure_ascii=False)
                trace = json.dumps(without_notes(result["output"]), ensure_ascii=False)
                standing = json.dumps(
                    [result.get("relative_standing"), result.get("confidence"), result.get("confidence_score")]
                )
                sources = sources_from([facts, trace, standing], method_constants(expert.value) + VOTE_CONSTANTS)
                found = check_texts(narrative_texts(result, STRUCTURED), sources)
                runs, checked = runs + 1, checked + found.checked
                untraceable += [f"{expert.value} {symbol} {on}: {c.field} {c.text!r}" for c in found.unverified]
    assert runs > len(symbols) * len(DATES) * 3
    assert checked > runs * 5  # the narratives are full of figures, and the gate found them
    assert untraceable == []
