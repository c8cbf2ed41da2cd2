"""Macro intelligence: levels and trends of PMI, CPI, PPI, M2, LPR and the 10-year yield, as released by
the analysis date."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from research.application.point_in_time_data import PointInTimeData
from research.application.result_audit import audit_fields
from research.domain.analysis.macro import compute_macro_facts
from research.domain.analysis.serialize import to_jsonable
from research.domain.model.market_data import MacroData
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import IMacroIntelligenceAgent
from research.domain.staleness import macro_staleness
from shared_contracts.research import MacroIntelligenceResult


def macro_inputs(macro: MacroData) -> dict[str, str]:
    """Each series' latest released observation (its reference date)."""
    return {name: s.observations[-1].date.isoformat() for name, s in sorted(macro.series.items())}


def macro_inputs_staleness(macro: MacroData, on: date) -> list[str]:
    return macro_staleness({n: (s.frequency, s.observations[-1].date) for n, s in macro.series.items()}, on)


class MacroIntelligenceService:
    def __init__(
        self, data: PointInTimeData, agent: IMacroIntelligenceAgent, today: Callable[[], date] = date.today
    ) -> None:
        self._data = data
        self._agent = agent
        self._today = today

    async def run(self, symbol: str, *, analysis_date: date | None = None) -> dict[str, Any]:
        parsed = Symbol.parse(symbol)
        analysis_date = analysis_date or self._today()
        macro = await self._data.macro(parsed, analysis_date)
        facts = compute_macro_facts(macro)
        answer = await self._agent.analyse(facts)
        result = MacroIntelligenceResult(
            **audit_fields(
                parsed,
                facts.as_of,
                self._data.provider,
                answer,
                analysis_date=analysis_date,
                inputs_as_of={"macro": macro_inputs(macro)},
                staleness=macro_inputs_staleness(macro, analysis_date),
            ),
            data_gaps=[f"no {name} series" for name in facts.missing_core],
            **answer.verdict.model_dump(),
            macro_indicators={"region": facts.region, **to_jsonable(facts.series)},
            information_sources=[self._data.name, *facts.sources],
        )
        return result.model_dump(mode="json")
