"""Technical analyst: indicators of the daily bars up to ``analysis_date``, judged by the engine."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from research.application.result_audit import audit_fields
from research.domain.analysis.serialize import to_jsonable
from research.domain.analysis.technical import YEAR_BARS, compute_technical_facts
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import ITechnicalAnalystAgent
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.research import TechnicalAnalystResult

STALE_AFTER_DAYS = 14
"""A latest bar further than this before the analysis date is named as a data gap (a holiday is shorter)."""


class TechnicalAnalystService:
    def __init__(
        self, provider: IMarketDataProvider, agent: ITechnicalAnalystAgent, today: Callable[[], date] = date.today
    ) -> None:
        self._provider = provider
        self._agent = agent
        self._today = today

    async def run(self, ticker: str, analysis_date: date | None = None) -> dict[str, Any]:
        """Analyse the last trading day on or before ``analysis_date`` (today when None, as the spec says)."""
        symbol = Symbol.parse(ticker)
        analysis_date = analysis_date or self._today()
        history = await self._provider.get_price_history(symbol, end=analysis_date)
        facts = compute_technical_facts(history, analysis_date)
        answer = await self._agent.analyse(facts)
        gaps = []
        if facts.bars_used < YEAR_BARS:
            gaps.append(f"only {facts.bars_used} bars: no MA250 and a 52-week range over {facts.window_52w_bars} bars")
        if (analysis_date - facts.as_of).days > STALE_AFTER_DAYS:
            gaps.append(
                f"the latest bar is {facts.as_of.isoformat()}, {(analysis_date - facts.as_of).days} days before "
                f"the analysis date {analysis_date.isoformat()}: {self._provider.name} has nothing newer"
            )
        result = TechnicalAnalystResult(
            **audit_fields(symbol, facts.as_of, self._provider, answer),
            data_gaps=gaps,
            **answer.verdict.model_dump(),
            key_technical_levels=to_jsonable(facts.levels),
            technical_indicators=to_jsonable(facts, exclude=frozenset({"levels", "symbol", "as_of"})),
        )
        return result.model_dump(mode="json")
