"""``GET /api/v1/coordinator/scorecard``: the stored verdicts scored on the bars known now, with the evaluation
report's figures (docs/evaluation.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import WithJsonSchema

from coordinator.application.dtos.scorecard import ENGINE_FILTER_PATTERN, ScorecardQuery
from coordinator.application.services.outcome_service import MAX_SCORECARD_SESSIONS
from coordinator.presentation.rest.dependencies import OutcomeServiceDep, ViewerDep
from shared_contracts.coordinator import Scorecard
from shared_contracts.experts import ISO_DATE_JSON_SCHEMA
from shared_contracts.problems import ProblemDetail
from shared_contracts.symbols import SYMBOL_FILTER_PATTERN


def _pattern(pattern: str) -> WithJsonSchema:
    """What ``ScorecardQuery.parse`` accepts, for the API document (it checks the filters itself: each mistake
    with its own code). A blank filter is no filter."""
    return WithJsonSchema({"type": "string", "pattern": pattern})


DAY_OR_BLANK = WithJsonSchema({"anyOf": [{"type": "string", "pattern": r"^\s*$"}, ISO_DATE_JSON_SCHEMA]})
"""A YYYY-MM-DD query parameter, blank meaning none (the API document's schema; the application checks it)."""

router = APIRouter(prefix="/api/v1/coordinator", tags=["sessions"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ProblemDetail,
        "description": "A bad filter: `code` invalid_symbol (not a symbol such as 600519.SH, 0700.HK, AAPL), "
        "invalid_engine (longer than 128 characters or not printable ASCII), invalid_date (start or end not a "
        "YYYY-MM-DD day), invalid_date_range (start after end).",
    },
    503: {"model": ProblemDetail, "description": "The session store is unavailable."},
}


@router.get(
    "/scorecard",
    operation_id="getScorecard",
    response_model=Scorecard,
    responses=_RESPONSES,
    summary="How the stored verdicts did on the bars known now (the evaluation report's figures)",
    description="Over the sessions with a verdict that no retry replaced (each research once), matching the "
    f"filters, at most the newest {MAX_SCORECARD_SESSIONS} (`truncated` says when more matched): each verdict "
    "scored as docs/evaluation.md says, its symbol's bars fetched once from the research service. A session whose "
    "holding period has not ended is `pending`; one whose bars could not be fetched is `unavailable`.",
)
async def scorecard(
    service: OutcomeServiceDep,
    viewer: ViewerDep,
    symbol: Annotated[
        str | None, _pattern(SYMBOL_FILTER_PATTERN), Query(description="Only this symbol (600519.SH, 0700.HK, AAPL).")
    ] = None,
    engine: Annotated[
        str | None,
        _pattern(ENGINE_FILTER_PATTERN),
        Query(description="Only verdicts of this engine: `rules` or an LLM model (verdict.engine)."),
    ] = None,
    start: Annotated[
        str | None, DAY_OR_BLANK, Query(description="First analysis date, YYYY-MM-DD (inclusive).")
    ] = None,
    end: Annotated[
        str | None, DAY_OR_BLANK, Query(description="Last analysis date, YYYY-MM-DD (inclusive; not before start).")
    ] = None,
) -> Scorecard:
    query = ScorecardQuery.parse(symbol=symbol, engine=engine, start=start, end=end, client_id=viewer.only_client)
    return await service.scorecard(query)
