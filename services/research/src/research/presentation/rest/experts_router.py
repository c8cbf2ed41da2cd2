"""``/api/v1/research/experts``: the catalogue, and running one expert on one symbol or on many."""

from __future__ import annotations

import time
from datetime import date
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, Path, Request
from pydantic import WithJsonSchema

from research.application.services.expert_dispatcher import ExpertDispatcher
from research.domain.model.symbol import Symbol
from research.presentation.rest.dependencies import EngineDep, ExpertDispatchersDep, MarketDataDep
from service_kit.bulk import answer_each
from service_kit.token_budget import RequestBudgets, TokenBudgetHeader, metered_request
from shared_contracts.bulk import BulkAnswer, ExpertBulkRequest
from shared_contracts.experts import EXPERT_OPTION_MODELS, ExpertType
from shared_contracts.research import (
    ExpertCatalog,
    ExpertDescriptor,
    ExpertOptionSpec,
    ExpertResult,
    ExpertRunRequest,
)

log = structlog.get_logger(__name__)
router = APIRouter(prefix="/api/v1/research", tags=["research"])
ExpertName = Annotated[
    str, WithJsonSchema({"type": "string", "enum": [e.value for e in ExpertType]}), Path(description="The expert.")
]
"""Checked by the dispatcher (expert_not_found), documented as the enum of experts."""

_DESCRIPTIONS: dict[ExpertType, tuple[str, str]] = {
    ExpertType.TECHNICAL_ANALYST: (
        "Technical analyst",
        "MA, MACD, RSI, Bollinger, ATR, volume ratio and support/resistance of the daily bars up to analysis_date.",
    ),
    ExpertType.FINANCIAL_AUDITOR: (
        "Financial auditor",
        "Growth, margins, ROE, cash-flow quality, leverage and payout over the last `limit` annual reports.",
    ),
    ExpertType.VALUATION_MODELER: (
        "Valuation modeler",
        "PE/PB/dividend yield, percentile, earnings yield vs the 10-year yield, an earnings-power value range.",
    ),
    ExpertType.MACRO_INTELLIGENCE: (
        "Macro intelligence",
        "PMI, CPI, PPI, M2, LPR and 10-year yield levels and trends of the stock's home market.",
    ),
    ExpertType.CATALYST_DETECTIVE: (
        "Catalyst detective",
        "Earnings inflections, dividend changes, price gaps, volume spikes, 52-week highs/lows, and news (live).",
    ),
}


def _options(expert: ExpertType) -> list[ExpertOptionSpec]:
    """Each option as the JSON its caller writes: types, bounds and defaults from the model's JSON schema."""
    properties: dict[str, dict[str, Any]] = EXPERT_OPTION_MODELS[expert].model_json_schema()["properties"]
    return [
        ExpertOptionSpec(
            name=name,
            type=" | ".join(_json_type(variant) for variant in schema.get("anyOf", [schema])),
            default=schema.get("default"),
            description=schema.get("description", ""),
            minimum=schema.get("minimum"),
            maximum=schema.get("maximum"),
        )
        for name, schema in properties.items()
    ]


def _json_type(schema: dict[str, Any]) -> str:
    kind = str(schema.get("type", "any"))
    return f"{kind} ({schema['format']})" if "format" in schema else kind


@router.get(
    "/experts",
    operation_id="listExperts",
    response_model=ExpertCatalog,
    summary="The five experts, their options and defaults",
)
async def list_experts(provider: MarketDataDep, engine: EngineDep) -> ExpertCatalog:
    experts = [
        ExpertDescriptor(name=e.value, title=_DESCRIPTIONS[e][0], description=_DESCRIPTIONS[e][1], options=_options(e))
        for e in ExpertType
    ]
    return ExpertCatalog(experts=experts, engine=engine, data_provider=provider.name)


_RUN_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "description": "bad symbol or options; analysis_date and options.analysis_date differ; a language other "
        "than zh or en (invalid_language)"
    },
    403: {"description": "model_calls_not_allowed: a client key asked for the LLM engine's model calls"},
    404: {"description": "unknown expert, unknown symbol, no data of that kind"},
    422: {
        "description": "insufficient_history: too little data public on the analysis date "
        "(`earliest_usable_date` says from when there is enough); token_budget_exhausted: X-Token-Budget "
        "(the coordinator's, capped at REQUEST_TOKEN_BUDGET) allows no further model call"
    },
    500: {"description": "llm_output_invalid: the LLM's answer is not the promised JSON"},
    502: {"description": "a live data source or the LLM endpoint refused the call"},
    503: {"description": "the LLM endpoint is unavailable"},
    504: {"description": "a live data source or the LLM endpoint timed out"},
}


async def _run_metered(
    experts: ExpertDispatcher,
    expert_type: str,
    symbol: str,
    options: dict[str, Any] | None,
    analysis_date: date | None,
    token_budget: int | None,
) -> dict[str, Any]:
    """One expert on one symbol, with the ``usage`` of the model calls it took (on its problem when it fails)."""
    started = time.perf_counter()
    with metered_request(token_budget) as meter:
        result = await experts.run(expert_type, symbol, options, analysis_date)
    result["usage"] = meter.usage.model_dump(mode="json")
    ms = round((time.perf_counter() - started) * 1000, 1)
    log.info("expert_done", expert=expert_type, symbol=symbol, engine=result["engine"]["kind"], ms=ms)
    return result


@router.post(
    "/experts/{expert_type}",
    operation_id="runExpert",
    response_model=ExpertResult,
    summary="Run one expert on a symbol",
    responses=_RUN_ERRORS,
)
async def run_expert(
    expert_type: ExpertName,
    body: ExpertRunRequest,
    dispatchers: ExpertDispatchersDep,
    budgets: RequestBudgets,
    token_budget: TokenBudgetHeader = None,
) -> dict[str, Any]:
    """The expert's result, written in the request's ``language``, with the ``usage`` of the model calls it took."""
    experts = dispatchers(body.language)
    budget = budgets.grant(token_budget)
    return await _run_metered(experts, expert_type, body.symbol, body.options, body.analysis_date, budget)


@router.post(
    "/experts/{expert_type}/bulk",
    operation_id="runExpertBulk",
    response_model=BulkAnswer,
    summary="Run one expert on many symbols",
    responses={
        400: {"description": "no symbols or more than 1,000; bad options; analysis_date and its option differ"},
        404: {"description": "unknown expert"},
    },
)
async def run_expert_bulk(
    expert_type: ExpertName,
    body: ExpertBulkRequest,
    request: Request,
    dispatchers: ExpertDispatchersDep,
    budgets: RequestBudgets,
) -> BulkAnswer:
    """Each symbol's result as ``runExpert`` returns it, or the problem it answers with (its status and code:
    ``symbol_not_found``, ``insufficient_history``, ...), in the order asked; ``token_budget`` is each item's."""
    experts = dispatchers(body.language)
    experts.resolve(expert_type, body.options, body.analysis_date)
    budget = budgets.grant(body.token_budget)

    async def one(symbol: str) -> dict[str, Any]:
        return await _run_metered(experts, expert_type, symbol, body.options, body.analysis_date, budget)

    return await answer_each(body.symbols, one, str, path=request.url.path, check=Symbol.parse)
