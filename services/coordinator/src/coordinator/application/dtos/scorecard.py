"""The scorecard's filters as the query string gives them, validated."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from coordinator.domain.exceptions import ScorecardEngineError
from coordinator.domain.ports.session_repository import VerdictFilter
from shared_contracts.errors import InvalidDateError, InvalidDateRangeError, InvalidSymbolError
from shared_contracts.experts import is_iso_date
from shared_contracts.symbols import SymbolSyntaxError, normalize_symbol

MAX_ENGINE_LENGTH = 128
ENGINE_FILTER_PATTERN = rf"^\s*(?:[!-~][ -~]{{0,{MAX_ENGINE_LENGTH - 1}}})?\s*$"
"""``ScorecardQuery.parse``'s engine as a JSON Schema pattern: blank, or printable ASCII of at most
``MAX_ENGINE_LENGTH`` characters once the blanks around it are dropped."""


@dataclass(frozen=True)
class ScorecardQuery(VerdictFilter):
    @classmethod
    def parse(
        cls,
        *,
        symbol: str | None = None,
        engine: str | None = None,
        start: str | None = None,
        end: str | None = None,
        client_id: str | None = None,
    ) -> ScorecardQuery:
        """Blank is no filter. Raises a 400 naming the bad one (``InvalidSymbolError``, ``ScorecardEngineError``,
        ``InvalidDateError``, ``InvalidDateRangeError``)."""
        wanted = None
        if symbol is not None and symbol.strip():
            try:
                wanted = normalize_symbol(symbol)
            except SymbolSyntaxError as exc:
                raise InvalidSymbolError(f"symbol: {exc}") from None
        named = engine.strip() if engine is not None and engine.strip() else None
        if named is not None and (len(named) > MAX_ENGINE_LENGTH or not (named.isascii() and named.isprintable())):
            limit = f"printable ASCII, at most {MAX_ENGINE_LENGTH} characters"
            raise ScorecardEngineError(f"engine must be 'rules' or an LLM model name ({limit})")
        first, last = optional_day("start", start), optional_day("end", end)
        if first is not None and last is not None and first > last:
            raise InvalidDateRangeError(f"start {first.isoformat()} is after end {last.isoformat()}")
        return cls(symbol=wanted, engine=named, client_id=client_id, start=first, end=last)


def optional_day(name: str, value: str | None) -> date | None:
    """``value`` as a day; None or blank: None; anything but YYYY-MM-DD: ``InvalidDateError`` naming ``name``."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not is_iso_date(text):
        raise InvalidDateError(f"{name} must be a YYYY-MM-DD day (got {text[:40]!r})")
    return date.fromisoformat(text)
