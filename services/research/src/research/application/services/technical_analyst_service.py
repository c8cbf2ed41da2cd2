"""Technical analyst: indicators of the daily bars public on ``analysis_date``, judged by the engine."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic_core import to_jsonable_python

from research.application.services.expert_service import ExpertService
from research.domain.analysis.technical import MIN_BARS, YEAR_BARS, TechnicalFacts, compute_technical_facts
from research.domain.model.verdicts import TechnicalVerdict
from research.domain.staleness import bars_staleness
from shared_contracts.errors import InsufficientHistoryError
from shared_contracts.research import TechnicalAnalystResult

VOTE_FIELDS = ("signal", "confidence", "summary_reasoning")


class TechnicalAnalystService(ExpertService[TechnicalFacts, TechnicalVerdict]):
    async def run(self, ticker: str, analysis_date: date | None = None) -> dict[str, Any]:
        """Analyse the last trading day on or before ``analysis_date`` (today when None, as the spec says)."""
        symbol, on = self._start(ticker, analysis_date)
        try:
            facts = compute_technical_facts(await self._data.price_history(symbol, on), on)
        except InsufficientHistoryError as exc:
            full = await self._data.full_price_history(symbol)
            earliest = full.bars[MIN_BARS - 1].date if len(full.bars) >= MIN_BARS else None
            when = f"; {MIN_BARS} bars are first public on {earliest.isoformat()}" if earliest else ""
            raise InsufficientHistoryError(f"{exc}{when}", earliest_usable_date=earliest) from None
        answer = await self._agent.analyse(facts)
        short = f"only {facts.bars_used} bars: no MA250 and a 52-week range over {facts.window_52w_bars} bars"
        gaps = [short] if facts.bars_used < YEAR_BARS else []
        stale = bars_staleness(facts.as_of, on, self._data.name)
        return TechnicalAnalystResult(
            **self._audit(symbol, facts.as_of, on, answer, {"bars": facts.as_of.isoformat()}, stale),
            data_gaps=self._gaps(gaps),
            **await self._voted(symbol, on, "technical", answer.verdict.model_dump(), VOTE_FIELDS),
            key_technical_levels=to_jsonable_python(facts.levels, inf_nan_mode="null"),
            technical_indicators=to_jsonable_python(facts, exclude={"levels", "symbol", "as_of"}, inf_nan_mode="null"),
        ).model_dump(mode="json")
