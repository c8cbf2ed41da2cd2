"""Catalyst detective: events detected in the bars and annual reports public on the analysis date, plus the
news published by then when the provider has it."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

from pydantic_core import to_jsonable_python

from research.application.dtos.catalyst_detective_agent_result import CatalystDetectiveAgentResult
from research.application.services.expert_service import ExpertService, Missing, optional
from research.domain.analysis.catalyst import (
    WINDOW_BARS,
    CatalystEvent,
    CatalystFacts,
    detect_financial_events,
    detect_price_events,
    news_events,
)
from research.domain.analysis.financial import compute_financial_facts
from research.domain.model.symbol import Symbol
from research.domain.model.verdicts import CatalystVerdict
from research.domain.staleness import bars_staleness, report_staleness
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError
from shared_contracts.research import CatalystResult

FINANCIAL_PERIODS = 3
NEWS_LIMIT = 20


class CatalystDetectiveService(ExpertService[CatalystFacts, CatalystVerdict]):
    async def run(self, symbol: str, *, analysis_date: date | None = None) -> CatalystDetectiveAgentResult:
        parsed, on = self._start(symbol, analysis_date)
        history, dated, news = await asyncio.gather(
            optional(self._data.price_history(parsed, on)),
            optional(self._data.financials(parsed, FINANCIAL_PERIODS, on)),
            optional(self._data.news(parsed, NEWS_LIMIT, on)),
        )
        events: list[CatalystEvent] = []
        gaps: list[str] = []
        provenance: dict[str, Any] = {}
        staleness: list[str] = []
        dates = []
        if isinstance(history, Missing) or len(history.bars) < 2:
            gaps.append(f"no price bars: {history}" if isinstance(history, Missing) else "too few bars")
        else:
            last_bar = history.bars[-1].date
            events += detect_price_events(history.bars)
            dates.append(last_bar)
            provenance["bars"] = last_bar.isoformat()
            staleness += bars_staleness(last_bar, on, self._data.name)
        if isinstance(dated, Missing):
            gaps.append(f"no annual financials: {dated}")
        else:
            period_end = dated.statements.periods[-1].period_end
            events += detect_financial_events(compute_financial_facts(dated.statements))
            dates.append(period_end)
            provenance["financials"] = dated.provenance()
            staleness += report_staleness(period_end, on)
        news_items = [] if isinstance(news, Missing) else news
        if news_items:
            events += news_events(news_items)
            dates.append(max(n.published_at.date() for n in news_items))
            provenance["news"] = max(dates).isoformat()
        else:
            gaps.append(f"no news from {self._data.name}")
        if not dates:
            raise self._nothing_to_detect(parsed, on, history, dated)
        facts = CatalystFacts(str(parsed), max(dates), tuple(events), tuple(news_items), tuple(provenance), tuple(gaps))
        answer = await self._agent.analyse(facts)
        is_llm = answer.engine.kind == "llm"
        return CatalystDetectiveAgentResult(
            result=CatalystResult(**answer.verdict.model_dump()),
            raw_llm_output=answer.output if is_llm else None,
            user_prompt=answer.input if is_llm else None,
            catalyst_context={
                "events": to_jsonable_python(facts.events, inf_nan_mode="null"),
                "news": to_jsonable_python(facts.news, inf_nan_mode="null"),
                "inputs": list(facts.inputs),
                "net_score": facts.net_score,
                "price_window_bars": WINDOW_BARS,
            },
            data_gaps=self._gaps(facts.gaps),
            **self._audit(parsed, facts.as_of, on, answer, provenance, staleness),
        )

    @staticmethod
    def _nothing_to_detect(symbol: Symbol, on: date, history: object, dated: object) -> Exception:
        """Insufficient history when a later day would have bars or a report; no data of either kind otherwise."""
        later = [e.earliest_usable_date for e in (history, dated) if isinstance(e, InsufficientHistoryError)]
        if first := min((day for day in later if day is not None), default=None):
            message = (
                f"{symbol}: neither price bars nor an annual report public on {on.isoformat()} to detect catalysts in"
            )
            return InsufficientHistoryError(message, earliest_usable_date=first)
        return DataUnavailableError(f"{symbol}: neither price bars nor financial statements to detect catalysts in")
