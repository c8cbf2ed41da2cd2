"""What the console reads beside the sessions, from the research service through the coordinator (the one origin
the console talks to, with ``make run`` as behind the gateway):

- ``GET /api/v1/coordinator/universe`` — the symbols research can analyse (the console's symbol search);
- ``GET /api/v1/coordinator/bars/{symbol}?start=&end=`` — a symbol's daily bars with volume (a session's chart).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import WithJsonSchema

from coordinator.presentation.rest.dependencies import MarketReferenceDep
from coordinator.presentation.rest.scorecard_router import DAY_OR_BLANK
from shared_contracts.problems import ProblemDetail
from shared_contracts.research import PriceBars, Universe
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA

router = APIRouter(prefix="/api/v1/coordinator", tags=["market data"])

_PEER: dict[int | str, dict[str, Any]] = {
    502: {"model": ProblemDetail, "description": "The research service answered with an error or off-contract."},
    503: {"model": ProblemDetail, "description": "The research service is unreachable (`code` peer_unavailable)."},
    504: {"model": ProblemDetail, "description": "The research service did not answer in time (`code` peer_timeout)."},
}


@router.get(
    "/universe",
    operation_id="getUniverse",
    response_model=Universe,
    responses=_PEER,
    summary="The symbols research can analyse",
)
async def universe(market: MarketReferenceDep) -> Universe:
    return await market.universe()


@router.get(
    "/bars/{symbol}",
    operation_id="getBars",
    response_model=PriceBars,
    responses={
        400: {
            "model": ProblemDetail,
            "description": "`code` invalid_symbol, invalid_date (start or end not YYYY-MM-DD) or invalid_date_range.",
        },
        404: {"model": ProblemDetail, "description": "Research has no bars for the symbol (`code` symbol_not_found)."},
        **_PEER,
    },
    summary="A symbol's daily bars with volume, oldest first, as research has them now",
)
async def bars(
    symbol: Annotated[str, WithJsonSchema(SYMBOL_JSON_SCHEMA), Path(description="600519.SH, 0700.HK, AAPL.")],
    market: MarketReferenceDep,
    start: Annotated[str | None, DAY_OR_BLANK, Query(description="First day, YYYY-MM-DD (inclusive).")] = None,
    end: Annotated[str | None, DAY_OR_BLANK, Query(description="Last day, YYYY-MM-DD (inclusive).")] = None,
) -> PriceBars:
    return await market.bars(symbol, start, end)
