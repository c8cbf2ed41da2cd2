"""IResearchExpertGateway over HTTP: POST {RESEARCH_SERVICE_URL}/api/v1/research/experts/{expert}
with ``{symbol, analysis_date?, options}``: the research's analysis date (carried by ``ExpertOptions``)
goes top-level, beside the expert's own options.

Every expert's reply is checked against its wire model (``shared_contracts.research``) and handed on as a
plain dict, unchanged: the catalyst detective's nested ``result`` object included, so all five results reach
the coordinator as ``dict[str, Any]``. The attempts the call took are set on the ``ExpertOptions``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.research_expert_gateway import ExpertOptions, IResearchExpertGateway, analysis_date_of
from coordinator.infrastructure.adapters.peer_http import PeerClient
from shared_contracts.research import (
    CatalystDetectiveResult,
    FinancialAuditorResult,
    MacroIntelligenceResult,
    TechnicalAnalystResult,
    ValuationModelerResult,
)

RESULT_MODELS: dict[ExpertType, type[BaseModel]] = {
    ExpertType.TECHNICAL_ANALYST: TechnicalAnalystResult,
    ExpertType.FINANCIAL_AUDITOR: FinancialAuditorResult,
    ExpertType.VALUATION_MODELER: ValuationModelerResult,
    ExpertType.MACRO_INTELLIGENCE: MacroIntelligenceResult,
    ExpertType.CATALYST_DETECTIVE: CatalystDetectiveResult,
}


class ResearchGatewayAdapter(IResearchExpertGateway):
    def __init__(self, research: PeerClient) -> None:
        self._research = research

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        expert = ExpertType(expert_type)
        request: dict[str, Any] = {"symbol": symbol}
        if (analysis_date := analysis_date_of(options)) is not None:
            request["analysis_date"] = analysis_date.isoformat()
        request["options"] = dict(options or {})
        if isinstance(options, ExpertOptions) and options.language is not None:
            request["language"] = options.language
        budget = options.token_budget if isinstance(options, ExpertOptions) else None
        path = f"/api/v1/research/experts/{expert.value}"
        body, attempts = await self._research.post_json(path, request, token_budget=budget)
        if isinstance(options, ExpertOptions):
            options.attempts = attempts
        self._research.parsed(RESULT_MODELS[expert], body, attempts, f"{expert.value}: result")
        return dict(body)

    async def run_expert_bulk(
        self, expert_type: ExpertType, symbols: Sequence[str], options: ExpertOptions
    ) -> list[dict[str, Any] | Exception]:
        """POST {RESEARCH_SERVICE_URL}/api/v1/research/experts/{expert}/bulk (``shared_contracts.bulk``)."""
        expert = ExpertType(expert_type)
        request: dict[str, Any] = {"symbols": list(symbols), "options": dict(options)}
        if options.analysis_date is not None:
            request["analysis_date"] = options.analysis_date.isoformat()
        if options.token_budget is not None:
            request["token_budget"] = options.token_budget
        if options.language is not None:
            request["language"] = options.language

        def item(result: dict[str, Any], attempts: int) -> dict[str, Any]:
            self._research.parsed(RESULT_MODELS[expert], result, attempts, f"{expert.value}: result")
            return result

        path = f"/api/v1/research/experts/{expert.value}/bulk"
        return await self._research.post_bulk(path, request, len(symbols), item)
