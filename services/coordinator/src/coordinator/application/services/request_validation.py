"""Turns a raw research command into a validated ``ResearchRequest`` with explicit options.

Defaults are resolved here, at request time, so what is stored and what a retry re-runs is exactly
what ran: the research's one ``analysis_date`` (the top-level field, else
``options.technical_analyst.analysis_date``, else today; both given and different is a
``ConflictingAnalysisDateError``), which the technical analyst's option then repeats, and
``financial_auditor.limit`` = 5, and the language its texts are written in (when not given, the coordinator's
REPORT_LANGUAGE if it has one, else none: each peer's own).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import ValidationError

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.exceptions import (
    DuplicateExpertError,
    ExpertsEmptyError,
    UnknownExpertError,
)
from coordinator.domain.model.enums import ExpertType
from shared_contracts.errors import (
    InvalidOptionsError,
    InvalidRequestError,
    InvalidSymbolError,
    SymbolRequiredError,
    resolve_analysis_date,
)
from shared_contracts.experts import EXPERT_OPTION_MODELS, is_iso_date
from shared_contracts.language import Language, known_language
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol

_VALUES = [e.value for e in ExpertType]
_KNOWN = ", ".join(_VALUES)
_TECHNICAL = ExpertType.TECHNICAL_ANALYST.value
_DATE_OPTION = "analysis_date"


def validate_command(
    command: ResearchCommand, today: Callable[[], date] = date.today, default_language: Language | None = None
) -> ResearchRequest:
    """The request ``command`` asks for, every default resolved (the language: ``default_language``, the
    coordinator's REPORT_LANGUAGE; None: the peers' own); a mistake raises its coded ``InvalidRequestError``."""
    symbol = (command.symbol or "").strip()
    if not symbol:
        raise SymbolRequiredError("symbol is required (e.g. 600519.SH)")
    try:
        symbol = normalize_symbol(symbol)
    except SymbolSyntaxError as exc:
        raise InvalidSymbolError(str(exc)) from None
    experts = _experts(command.experts)
    language = default_language if command.language is None else known_language(command.language)
    given_date = _analysis_date(command.analysis_date)
    options = _options(experts, command.options or {})
    option = options.get(_TECHNICAL, {}).get(_DATE_OPTION)
    analysis_date = resolve_analysis_date(
        given_date,
        date.fromisoformat(option) if option is not None else None,
        today(),
        option_name="options.technical_analyst.analysis_date",
    )
    if _TECHNICAL in options:
        options[_TECHNICAL][_DATE_OPTION] = analysis_date.isoformat()
    return ResearchRequest(
        symbol=symbol,
        experts=experts,
        options=options,
        skip_debate=command.skip_debate,
        analysis_date=analysis_date,
        language=language,
    )


def _experts(names: list[str] | None) -> list[ExpertType]:
    if not names:
        raise ExpertsEmptyError(f"experts must list at least one of: {_KNOWN}")
    if unknown := list(dict.fromkeys(n for n in names if n not in _VALUES)):
        raise UnknownExpertError(f"unknown expert(s) {_listing(unknown)}; known: {_KNOWN}")
    if duplicates := sorted(n for n, count in Counter(names).items() if count > 1):
        raise DuplicateExpertError(f"expert(s) listed more than once: {', '.join(duplicates)}")
    return [ExpertType(n) for n in names]


def _listing(names: list[str], shown: int = 5) -> str:
    """The first few names, each cut to 40 characters: the message stays short whatever was sent."""
    listed = ", ".join(repr(n[:40]) for n in names[:shown])
    return f"{listed} and {len(names) - shown} more" if len(names) > shown else listed


def _analysis_date(value: str | None) -> date | None:
    if value is None:
        return None
    if not is_iso_date(value):
        shown = str(value)[:40]
        raise InvalidRequestError(f"analysis_date: must be a YYYY-MM-DD string naming a real day (got {shown!r})")
    return date.fromisoformat(value)


def _options(experts: list[ExpertType], given: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    if stray := sorted(set(given) - {e.value for e in experts}):
        raise InvalidOptionsError(f"options given for expert(s) not requested: {', '.join(stray)}")
    resolved: dict[str, dict[str, Any]] = {}
    for expert in experts:
        raw = given.get(expert.value) or {}
        try:
            model = EXPERT_OPTION_MODELS[expert].model_validate(raw)
        except ValidationError as exc:
            where = f"options.{expert.value}"
            raise InvalidOptionsError(
                "; ".join(f"{where}.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            ) from None
        resolved[expert.value] = model.model_dump(mode="json")
    return resolved
