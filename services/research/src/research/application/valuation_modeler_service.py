"""Valuation modeler: PE/PB/dividend yield, percentile, earnings yield vs the 10-year yield, and an
intrinsic value range with stated assumptions."""

from __future__ import annotations

from typing import Any

from research.application.result_audit import audit_fields
from research.domain.analysis.serialize import to_jsonable
from research.domain.analysis.valuation import compute_valuation_facts
from research.domain.exceptions import DataUnavailableError
from research.domain.model.market_data import MacroData
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import IValuationModelerAgent
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.research import ValuationModelerResult


class ValuationModelerService:
    def __init__(self, provider: IMarketDataProvider, agent: IValuationModelerAgent) -> None:
        self._provider = provider
        self._agent = agent

    async def run(self, symbol: str) -> dict[str, Any]:
        parsed = Symbol.parse(symbol)
        valuation = await self._provider.get_valuation(parsed)
        macro: MacroData | None
        try:
            macro = await self._provider.get_macro(parsed)
        except DataUnavailableError:
            macro = None
        facts = compute_valuation_facts(valuation, macro)
        answer = await self._agent.analyse(facts)
        intrinsic = to_jsonable(facts.intrinsic_value) if facts.intrinsic_value else {"available": False}
        result = ValuationModelerResult(
            **audit_fields(parsed, facts.as_of, self._provider, answer),
            data_gaps=list(facts.gaps),
            **answer.verdict.model_dump(),
            estimated_intrinsic_value_range=intrinsic,
            valuation_indicators=to_jsonable(facts, exclude=frozenset({"symbol", "as_of", "intrinsic_value", "gaps"})),
        )
        return result.model_dump(mode="json")
