"""Catalyst detective: events detected in the bars and annual reports, plus news when the provider has it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from research.application.dtos import CatalystDetectiveAgentResult
from research.application.result_audit import audit_fields
from research.domain.analysis.catalyst import CatalystFacts
from research.domain.analysis.events import (
    WINDOW_BARS,
    CatalystEvent,
    detect_financial_events,
    detect_price_events,
    news_events,
)
from research.domain.analysis.financial import compute_financial_facts
from research.domain.analysis.serialize import to_jsonable
from research.domain.exceptions import DataUnavailableError
from research.domain.model.symbol import Symbol
from research.domain.ports.agents import ICatalystDetectiveAgent
from research.domain.ports.market_data import IMarketDataProvider
from shared_contracts.research import CatalystItem, CatalystResult

T = TypeVar("T")
FINANCIAL_PERIODS = 3
NEWS_LIMIT = 20


async def _optional(call: Awaitable[T]) -> T | DataUnavailableError:
    try:
        return await call
    except DataUnavailableError as exc:
        return exc


class CatalystDetectiveService:
    def __init__(self, provider: IMarketDataProvider, agent: ICatalystDetectiveAgent) -> None:
        self._provider = provider
        self._agent = agent

    async def run(self, symbol: str) -> CatalystDetectiveAgentResult:
        parsed = Symbol.parse(symbol)
        history, statements, news = await asyncio.gather(
            _optional(self._provider.get_price_history(parsed)),
            _optional(self._provider.get_financials(parsed, FINANCIAL_PERIODS)),
            _optional(self._provider.get_news(parsed, NEWS_LIMIT)),
        )
        events: list[CatalystEvent] = []
        inputs: list[str] = []
        gaps: list[str] = []
        dates = []
        if isinstance(history, DataUnavailableError) or len(history.bars) < 2:
            gaps.append(f"no price bars: {history}" if isinstance(history, DataUnavailableError) else "too few bars")
        else:
            events += detect_price_events(history.bars)
            inputs.append("bars")
            dates.append(history.bars[-1].date)
        if isinstance(statements, DataUnavailableError) or not statements.periods:
            gaps.append(f"no annual financials: {statements}" if isinstance(statements, DataUnavailableError) else "")
        else:
            events += detect_financial_events(compute_financial_facts(statements))
            inputs.append("financials")
            dates.append(statements.periods[-1].period_end)
        news_items = [] if isinstance(news, DataUnavailableError) else news
        if news_items:
            events += news_events(news_items)
            inputs.append("news")
            dates.append(max(n.published_at.date() for n in news_items))
        else:
            gaps.append(f"no news from {self._provider.name}")
        if not dates:
            raise DataUnavailableError(f"{parsed}: neither price bars nor financial statements to detect catalysts in")
        facts = CatalystFacts(
            symbol=str(parsed),
            as_of=max(dates),
            events=tuple(events),
            news=tuple(news_items),
            inputs=tuple(inputs),
            gaps=tuple(g for g in gaps if g),
        )
        answer = await self._agent.analyse(facts)
        verdict = answer.verdict
        is_llm = answer.engine.kind == "llm"
        return CatalystDetectiveAgentResult(
            result=CatalystResult(
                catalyst_assessment=verdict.catalyst_assessment,
                confidence_score=verdict.confidence_score,
                catalyst_summary=verdict.catalyst_summary,
                positive_catalysts=[CatalystItem(**p.model_dump()) for p in verdict.positive_catalysts],
                negative_catalysts=[CatalystItem(**p.model_dump()) for p in verdict.negative_catalysts],
            ),
            raw_llm_output=answer.output if is_llm else None,
            user_prompt=answer.input if is_llm else None,
            catalyst_context={
                "events": to_jsonable(list(facts.events)),
                "news": to_jsonable(list(facts.news)),
                "inputs": list(facts.inputs),
                "net_score": facts.net_score,
                "price_window_bars": WINDOW_BARS,
            },
            data_gaps=list(facts.gaps),
            **audit_fields(parsed, facts.as_of, self._provider, answer),
        )
