"""The audit fields every expert result carries: what was analysed, when, from which data, by which engine,
with what ``input`` and ``output`` (ARCHITECTURE.md, "Expert result shapes")."""

from __future__ import annotations

from datetime import date
from typing import Any

from research.domain.model.symbol import Symbol
from research.domain.model.verdicts import AgentAnswer
from research.domain.ports.market_data import IMarketDataProvider


def audit_fields(
    symbol: Symbol, as_of: date, provider: IMarketDataProvider, answer: AgentAnswer[Any]
) -> dict[str, Any]:
    """Keyword arguments for a ``shared_contracts.research`` result model."""
    return {
        "symbol": str(symbol),
        "as_of": as_of.isoformat(),
        "data_source": provider.name,
        "engine": answer.engine,
        "input": answer.input,
        "output": answer.output,
    }
