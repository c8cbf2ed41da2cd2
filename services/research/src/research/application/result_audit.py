"""The audit fields every expert result carries: what was analysed, as of which day, from which data (and how
old each input was), by which engine, with what ``input`` and ``output`` (ARCHITECTURE.md, "Expert result
shapes")."""

from __future__ import annotations

from datetime import date
from typing import Any

from research.domain.model.symbol import Symbol
from research.domain.model.verdicts import AgentAnswer
from research.domain.ports.market_data import IMarketDataProvider


def audit_fields(
    symbol: Symbol,
    as_of: date,
    provider: IMarketDataProvider,
    answer: AgentAnswer[Any],
    *,
    analysis_date: date,
    inputs_as_of: dict[str, Any],
    staleness: list[str],
) -> dict[str, Any]:
    """Keyword arguments for a ``shared_contracts.research`` result model; ``as_of`` is never after
    ``analysis_date`` (the data passed through ``PointInTimeData``)."""
    assert as_of <= analysis_date, f"as_of {as_of} after the analysis date {analysis_date}"
    return {
        "symbol": str(symbol),
        "as_of": as_of.isoformat(),
        "analysis_date": analysis_date.isoformat(),
        "inputs_as_of": inputs_as_of,
        "staleness": staleness,
        "data_source": provider.name,
        "engine": answer.engine,
        "input": answer.input,
        "output": answer.output,
    }
