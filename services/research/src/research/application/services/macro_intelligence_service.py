"""Macro intelligence: levels and trends of PMI, CPI, PPI, M2, LPR and the 10-year yield, as released by
the analysis date."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic_core import to_jsonable_python

from research.application.data_notes import missing_series
from research.application.services.expert_service import ExpertService
from research.domain.analysis.macro import MacroFacts, compute_macro_facts
from research.domain.model.verdicts import MacroVerdict
from research.domain.staleness import macro_staleness
from shared_contracts.research import MacroIntelligenceResult


class MacroIntelligenceService(ExpertService[MacroFacts, MacroVerdict]):
    async def run(self, symbol: str, *, analysis_date: date | None = None) -> dict[str, Any]:
        parsed, on = self._start(symbol, analysis_date)
        macro = await self._data.macro(parsed, on)
        facts = compute_macro_facts(macro)
        answer = await self._agent.analyse(facts)
        latest = {name: s.observations[-1].date for name, s in sorted(macro.series.items())}
        inputs = {"macro": {name: day.isoformat() for name, day in latest.items()}}
        stale = macro_staleness({name: (macro.series[name].frequency, day) for name, day in latest.items()}, on)
        return MacroIntelligenceResult(
            **self._audit(parsed, facts.as_of, on, answer, inputs, stale),
            data_gaps=missing_series(facts.missing_core, self._language),
            **answer.verdict.model_dump(),
            macro_indicators={"region": facts.region, **to_jsonable_python(facts.series, inf_nan_mode="null")},
            information_sources=[self._data.name, *facts.sources],
        ).model_dump(mode="json")
