"""``GET /api/v1/research/universe``: the symbols the data provider can analyse, with what it has for each."""

from __future__ import annotations

from fastapi import APIRouter

from research.domain.model.market_data import DateSpan as Span
from research.presentation.rest.dependencies import MarketDataDep
from shared_contracts.research import DateSpan, Universe, UniverseSymbol

router = APIRouter(prefix="/api/v1/research", tags=["research"])


def _span(span: Span | None) -> DateSpan | None:
    return DateSpan(first=span.first.isoformat(), last=span.last.isoformat(), count=span.count) if span else None


@router.get(
    "/universe",
    operation_id="getUniverse",
    response_model=Universe,
    summary="The symbols that can be analysed, and their data",
)
async def universe(provider: MarketDataDep) -> Universe:
    coverage = await provider.universe()
    if coverage is None:
        return Universe(data_provider=provider.name, open_ended=True, count=0, symbols=[])
    symbols = [
        UniverseSymbol(
            symbol=c.symbol,
            market=c.market,
            bars=_span(c.bars),
            financials=_span(c.financials),
            valuation=_span(c.valuation),
        )
        for c in coverage
    ]
    return Universe(data_provider=provider.name, open_ended=False, count=len(symbols), symbols=symbols)
