"""Macro intelligence: levels and trends of PMI, CPI, PPI, M2, LPR and the 10-year yield."""

from __future__ import annotations

from typing import Any

from research.application.result_audit import audit_fields
from research.domain.analysis.macro import compute_macro_facts
from research.domain.analysis.serialize import to_jsonable
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import IMacroIntelligenceAgent
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.research import MacroIntelligenceResult


class MacroIntelligenceService:
    def __init__(self, provider: IMarketDataProvider, agent: IMacroIntelligenceAgent) -> None:
        self._provider = provider
        self._agent = agent

    async def run(self, symbol: str) -> dict[str, Any]:
        parsed = Symbol.parse(symbol)
        macro = await self._provider.get_macro(parsed)
        facts = compute_macro_facts(macro)
        answer = await self._agent.analyse(facts)
        result = MacroIntelligenceResult(
            **audit_fields(parsed, facts.as_of, self._provider, answer),
            data_gaps=[f"no {name} series" for name in facts.missing_core],
            **answer.verdict.model_dump(),
            macro_indicators={"region": facts.region, **to_jsonable(facts.series)},
            information_sources=[self._provider.name, *facts.sources],
        )
        return result.model_dump(mode="json")
