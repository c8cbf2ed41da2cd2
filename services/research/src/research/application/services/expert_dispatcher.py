"""Run any expert by name with wire options: the use case behind ``POST /experts/{expert_type}``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ValidationError

from research.application.services.catalyst_detective_service import CatalystDetectiveService
from research.application.services.financial_auditor_service import FinancialAuditorService
from research.application.services.macro_intelligence_service import MacroIntelligenceService
from research.application.services.technical_analyst_service import TechnicalAnalystService
from research.application.services.valuation_modeler_service import ValuationModelerService
from research.domain.exceptions import ExpertNotFoundError
from shared_contracts.errors import InvalidOptionsError, resolve_analysis_date
from shared_contracts.experts import EXPERT_OPTION_MODELS, ExpertType, FinancialAuditorOptions, TechnicalAnalystOptions


def parse_expert(name: str) -> ExpertType:
    try:
        return ExpertType(name)
    except ValueError:
        known = ", ".join(e.value for e in ExpertType)
        raise ExpertNotFoundError(f"unknown expert {name!r}; the experts are: {known}") from None


def parse_options(expert: ExpertType, options: dict[str, Any] | None) -> BaseModel:
    try:
        return EXPERT_OPTION_MODELS[expert].model_validate(options or {})
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in exc.errors())
        raise InvalidOptionsError(f"invalid options for {expert.value}: {where}") from None


@dataclass(frozen=True)
class ExpertDispatcher:
    technical: TechnicalAnalystService
    financial: FinancialAuditorService
    valuation: ValuationModelerService
    macro: MacroIntelligenceService
    catalyst: CatalystDetectiveService
    today: Callable[[], date] = date.today

    def resolve(
        self, expert_name: str, options: dict[str, Any] | None = None, analysis_date: date | None = None
    ) -> tuple[ExpertType, BaseModel, date]:
        """The expert, its parsed options and the research's date (ExpertNotFoundError, InvalidOptionsError,
        ConflictingAnalysisDateError, AnalysisDateInFutureError)."""
        expert = parse_expert(expert_name)
        parsed = parse_options(expert, options)
        option_date = parsed.analysis_date if isinstance(parsed, TechnicalAnalystOptions) else None
        on = resolve_analysis_date(analysis_date, option_date, self.today(), option_name="options.analysis_date")
        return expert, parsed, on

    async def run(
        self, expert_name: str, symbol: str, options: dict[str, Any] | None = None, analysis_date: date | None = None
    ) -> dict[str, Any]:
        """Validate the expert, its options and the date (``resolve``), then run it as of the research's date."""
        expert, parsed, on = self.resolve(expert_name, options, analysis_date)
        if expert is ExpertType.TECHNICAL_ANALYST:
            return await self.technical.run(symbol, on)
        if expert is ExpertType.FINANCIAL_AUDITOR:
            assert isinstance(parsed, FinancialAuditorOptions)
            return await self.financial.run(symbol, limit=parsed.limit, analysis_date=on)
        if expert is ExpertType.VALUATION_MODELER:
            return await self.valuation.run(symbol, analysis_date=on)
        if expert is ExpertType.MACRO_INTELLIGENCE:
            return await self.macro.run(symbol, analysis_date=on)
        return (await self.catalyst.run(symbol, analysis_date=on)).model_dump(mode="json")
