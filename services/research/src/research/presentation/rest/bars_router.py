"""``GET /api/v1/research/bars/{symbol}?start=&end=``: daily bars as the data source has them (for scoring
verdicts against what happened after them: the evaluator and the coordinator's scorecard)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import WithJsonSchema

from research.domain.model.symbol import Symbol
from research.presentation.rest.dependencies import MarketDataDep
from shared_contracts.errors import InvalidDateError, InvalidDateRangeError
from shared_contracts.experts import ISO_DATE_JSON_SCHEMA, is_iso_date
from shared_contracts.research import PriceBar, PriceBars
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA

router = APIRouter(prefix="/api/v1/research", tags=["research"])
_DAY = WithJsonSchema(ISO_DATE_JSON_SCHEMA)  # checked by _day (invalid_date), not by FastAPI


def _day(name: str, value: str | None) -> date | None:
    if value is None:
        return None
    if not is_iso_date(value):
        raise InvalidDateError(f"{name} must be an ISO date, YYYY-MM-DD, of a real day (got {value[:40]!r})")
    return date.fromisoformat(value)


@router.get(
    "/bars/{symbol}",
    operation_id="getBars",
    response_model=PriceBars,
    summary="Daily bars of a symbol between two dates (inclusive)",
    responses={
        400: {"description": "invalid_symbol; invalid_date (not YYYY-MM-DD); invalid_date_range (start after end)"},
        404: {"description": "symbol_not_found, data_unavailable (no bars for the symbol)"},
    },
)
async def bars(
    symbol: Annotated[str, WithJsonSchema(SYMBOL_JSON_SCHEMA)],
    provider: MarketDataDep,
    start: Annotated[str | None, _DAY, Query(description="First day (ISO), inclusive.")] = None,
    end: Annotated[str | None, _DAY, Query(description="Last day (ISO), inclusive; not before start.")] = None,
) -> PriceBars:
    parsed = Symbol.parse(symbol)
    first, last = _day("start", start), _day("end", end)
    if first and last and first > last:
        raise InvalidDateRangeError(f"start {first.isoformat()} is after end {last.isoformat()}")
    history = await provider.get_price_history(parsed, end=last)
    rows = [b for b in history.bars if first is None or b.date >= first]
    return PriceBars(
        symbol=str(parsed),
        data_source=provider.name,
        source=history.source,
        adjustment=history.adjustment,
        start=first.isoformat() if first else None,
        end=last.isoformat() if last else None,
        count=len(rows),
        bars=[
            PriceBar(date=b.date.isoformat(), open=b.open, high=b.high, low=b.low, close=b.close, volume=b.volume)
            for b in rows
        ],
    )
