"""Technical analyst: indicators of the daily bars public on ``analysis_date``, judged by the engine."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from research.application.point_in_time_data import PointInTimeData
from research.application.result_audit import audit_fields
from research.domain.analysis.serialize import to_jsonable
from research.domain.analysis.technical import MIN_BARS, YEAR_BARS, compute_technical_facts
from research.domain.exceptions import InsufficientHistoryError
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import ITechnicalAnalystAgent
from research.domain.staleness import bars_staleness
from shared_contracts.research import TechnicalAnalystResult


class TechnicalAnalystService:
    def __init__(
        self, data: PointInTimeData, agent: ITechnicalAnalystAgent, today: Callable[[], date] = date.today
    ) -> None:
        self._data = data
        self._agent = agent
        self._today = today

    async def run(self, ticker: str, analysis_date: date | None = None) -> dict[str, Any]:
        """Analyse the last trading day on or before ``analysis_date`` (today when None, as the spec says)."""
        symbol = Symbol.parse(ticker)
        analysis_date = analysis_date or self._today()
        try:
            history = await self._data.price_history(symbol, analysis_date)
            facts = compute_technical_facts(history, analysis_date)
        except InsufficientHistoryError as exc:
            full = await self._data.full_price_history(symbol)
            earliest = full.bars[MIN_BARS - 1].date if len(full.bars) >= MIN_BARS else None
            when = f"; {MIN_BARS} bars are first public on {earliest.isoformat()}" if earliest else ""
            raise InsufficientHistoryError(f"{exc}{when}", earliest_usable_date=earliest) from None
        answer = await self._agent.analyse(facts)
        gaps = []
        if facts.bars_used < YEAR_BARS:
            gaps.append(f"only {facts.bars_used} bars: no MA250 and a 52-week range over {facts.window_52w_bars} bars")
        result = TechnicalAnalystResult(
            **audit_fields(
                symbol,
                facts.as_of,
                self._data.provider,
                answer,
                analysis_date=analysis_date,
                inputs_as_of={"bars": facts.as_of.isoformat()},
                staleness=bars_staleness(facts.as_of, analysis_date, self._data.name),
            ),
            data_gaps=gaps,
            **answer.verdict.model_dump(),
            key_technical_levels=to_jsonable(facts.levels),
            technical_indicators=to_jsonable(facts, exclude=frozenset({"levels", "symbol", "as_of"})),
        )
        return result.model_dump(mode="json")
