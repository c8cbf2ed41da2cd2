"""Turns a raw research command into a validated ``ResearchRequest`` with explicit options.

Option defaults are resolved here, at request time (technical_analyst.analysis_date = today,
financial_auditor.limit = 5), so what is stored and what a retry re-runs is exactly what ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import ValidationError

from coordinator.application.dtos import ResearchCommand
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import (
    DuplicateExpertError,
    ExpertsEmptyError,
    InvalidOptionsError,
    InvalidSymbolError,
    SymbolRequiredError,
    UnknownExpertError,
)
from coordinator.domain.model.enums import ExpertType
from shared_contracts.experts import EXPERT_OPTION_MODELS
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol

_VALUES = [e.value for e in ExpertType]
_KNOWN = ", ".join(_VALUES)


def validate_command(command: ResearchCommand, today: Callable[[], date] = date.today) -> ResearchRequest:
    symbol = (command.symbol or "").strip()
    if not symbol:
        raise SymbolRequiredError("symbol is required (e.g. 600519.SH)")
    try:
        symbol = normalize_symbol(symbol)
    except SymbolSyntaxError as exc:
        raise InvalidSymbolError(str(exc)) from None
    experts = _experts(command.experts)
    return ResearchRequest(
        symbol=symbol,
        experts=experts,
        options=_options(experts, command.options or {}, today),
        skip_debate=command.skip_debate,
    )


def _experts(names: list[str] | None) -> list[ExpertType]:
    if not names:
        raise ExpertsEmptyError(f"experts must list at least one of: {_KNOWN}")
    unknown = list(dict.fromkeys(n for n in names if n not in _VALUES))
    if unknown:
        raise UnknownExpertError(f"unknown expert(s) {_listing(unknown)}; known: {_KNOWN}")
    duplicates = sorted(n for n, count in Counter(names).items() if count > 1)
    if duplicates:
        raise DuplicateExpertError(f"expert(s) listed more than once: {', '.join(duplicates)}")
    return [ExpertType(n) for n in names]


def _listing(names: list[str], shown: int = 5) -> str:
    """The first few names, each cut to 40 characters: the message stays short whatever was sent."""
    listed = ", ".join(repr(n[:40]) for n in names[:shown])
    return f"{listed} and {len(names) - shown} more" if len(names) > shown else listed


def _options(
    experts: list[ExpertType], given: dict[str, dict[str, Any]], today: Callable[[], date]
) -> dict[str, dict[str, Any]]:
    selected = {e.value for e in experts}
    stray = sorted(set(given) - selected)
    if stray:
        raise InvalidOptionsError(f"options given for expert(s) not requested: {', '.join(stray)}")
    resolved: dict[str, dict[str, Any]] = {}
    for expert in experts:
        raw = given.get(expert.value) or {}
        try:
            model = EXPERT_OPTION_MODELS[expert].model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"options.{expert.value}.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
            )
            raise InvalidOptionsError(problems) from None
        values = model.model_dump(mode="json")
        if expert is ExpertType.TECHNICAL_ANALYST and values.get("analysis_date") is None:
            values["analysis_date"] = today().isoformat()
        resolved[expert.value] = values
    return resolved
