"""Run any expert by name with wire options: the use case behind ``POST /experts/{expert_type}``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from research.application.catalyst_detective_service import CatalystDetectiveService
from research.application.financial_auditor_service import FinancialAuditorService
from research.application.macro_intelligence_service import MacroIntelligenceService
from research.application.technical_analyst_service import TechnicalAnalystService
from research.application.valuation_modeler_service import ValuationModelerService
from research.domain.exceptions import InvalidOptionsError, UnknownExpertError
from shared_contracts.experts import (
    EXPERT_OPTION_MODELS,
    ExpertType,
    FinancialAuditorOptions,
    TechnicalAnalystOptions,
)


def parse_expert(name: str) -> ExpertType:
    try:
        return ExpertType(name)
    except ValueError:
        known = ", ".join(e.value for e in ExpertType)
        raise UnknownExpertError(f"unknown expert {name!r}; the experts are: {known}") from None


def parse_options(expert: ExpertType, options: dict[str, Any] | None) -> BaseModel:
    try:
        return EXPERT_OPTION_MODELS[expert].model_validate(options or {})
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in exc.errors())
        raise InvalidOptionsError(f"invalid options for {expert.value}: {where}") from None


class ExpertDispatcher:
    def __init__(
        self,
        technical: TechnicalAnalystService,
        financial: FinancialAuditorService,
        valuation: ValuationModelerService,
        macro: MacroIntelligenceService,
        catalyst: CatalystDetectiveService,
    ) -> None:
        self.technical = technical
        self.financial = financial
        self.valuation = valuation
        self.macro = macro
        self.catalyst = catalyst

    async def run(self, expert_name: str, symbol: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Validate the expert and its options (UnknownExpertError, InvalidOptionsError), then run it."""
        expert = parse_expert(expert_name)
        parsed = parse_options(expert, options)
        if expert is ExpertType.TECHNICAL_ANALYST:
            assert isinstance(parsed, TechnicalAnalystOptions)
            return await self.technical.run(symbol, parsed.analysis_date)
        if expert is ExpertType.FINANCIAL_AUDITOR:
            assert isinstance(parsed, FinancialAuditorOptions)
            return await self.financial.run(symbol, limit=parsed.limit)
        if expert is ExpertType.VALUATION_MODELER:
            return await self.valuation.run(symbol)
        if expert is ExpertType.MACRO_INTELLIGENCE:
            return await self.macro.run(symbol)
        result = await self.catalyst.run(symbol)
        return result.model_dump(mode="json")
