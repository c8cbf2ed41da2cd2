"""Composition root: builds the data provider and the engines from settings, and wires the use cases."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel

from research.application.point_in_time_data import PointInTimeData
from research.application.services.catalyst_detective_service import CatalystDetectiveService
from research.application.services.expert_dispatcher import ExpertDispatcher
from research.application.services.financial_auditor_service import FinancialAuditorService
from research.application.services.macro_intelligence_service import MacroIntelligenceService
from research.application.services.technical_analyst_service import TechnicalAnalystService
from research.application.services.valuation_modeler_service import ValuationModelerService
from research.application.universe_standing import UniverseStanding
from research.domain.model.verdicts import (
    CatalystVerdict,
    FinancialVerdict,
    MacroVerdict,
    TechnicalVerdict,
    ValuationVerdictModel,
)
from research.domain.ports.agents import ExpertAgent
from research.domain.ports.market_data import IMarketDataProvider
from research.infrastructure.agents.llm_agent import LLMExpertAgent, catalyst_slots
from research.infrastructure.data.snapshot_provider import DEFAULT_SNAPSHOT_DIR, OfflineSnapshotProvider
from research.infrastructure.rules.catalyst_detective import RulesCatalystDetectiveAgent
from research.infrastructure.rules.financial_auditor import RulesFinancialAuditorAgent
from research.infrastructure.rules.macro_intelligence import RulesMacroIntelligenceAgent
from research.infrastructure.rules.technical_analyst import RulesTechnicalAnalystAgent
from research.infrastructure.rules.valuation_modeler import RulesValuationModelerAgent
from research.settings import Settings
from service_kit.languages import ByLanguage
from service_kit.llm.client import OpenAICompatibleChat, build_chat_client
from service_kit.llm.numbers.gate import NumbersGate
from service_kit.settings import ConfigurationError
from shared_contracts.engine import EngineInfo
from shared_contracts.language import Language

F = TypeVar("F")
V = TypeVar("V", bound=BaseModel)
_LIVE_PROVIDERS = {
    "akshare": ("research.infrastructure.data.akshare_provider", "AkshareMarketDataProvider", "akshare"),
    "yfinance": ("research.infrastructure.data.yfinance_provider", "YFinanceMarketDataProvider", "yfinance"),
}


@dataclass
class ResearchContainer:
    settings: Settings
    provider: IMarketDataProvider
    dispatchers: ByLanguage[ExpertDispatcher]
    """The experts writing in each report language (a request's ``language``, else REPORT_LANGUAGE)."""
    engine: EngineInfo
    chat: OpenAICompatibleChat | None = None

    @property
    def experts(self) -> ExpertDispatcher:
        """The experts writing in REPORT_LANGUAGE."""
        return self.dispatchers.preferred

    async def readiness(self) -> dict[str, str]:
        symbols = await self.provider.available_symbols()
        data = "ok" if symbols is None or symbols else "the offline snapshot has no symbols"
        return {"market_data": data, "engine": "ok"}

    async def aclose(self) -> None:
        if self.chat is not None:
            await self.chat.aclose()


def build_provider(settings: Settings) -> IMarketDataProvider:
    if settings.market_data_provider == "offline":
        return OfflineSnapshotProvider(settings.snapshot_dir or DEFAULT_SNAPSHOT_DIR)
    module_name, class_name, extra = _LIVE_PROVIDERS[settings.market_data_provider]
    hint = f"MARKET_DATA_PROVIDER={settings.market_data_provider} needs the optional extra '{extra}'"
    try:
        module = importlib.import_module(module_name)  # lazy: the live libraries are optional extras
        provider: IMarketDataProvider = getattr(module, class_name)(timeout_seconds=settings.data_timeout_seconds)
    except ImportError as exc:
        raise ConfigurationError(f"{hint} (uv sync --package research --extra {extra}): {exc}") from exc
    except RuntimeError as exc:  # the adapter's OptionalDependencyMissingError: the library is not installed
        raise ConfigurationError(f"{hint}: {exc}") from exc
    return provider


def build_container(
    settings: Settings,
    *,
    provider: IMarketDataProvider | None = None,
    chat: OpenAICompatibleChat | None = None,
    today: Callable[[], date] = date.today,
) -> ResearchContainer:
    """Build everything from settings; tests pass a fake ``provider``, a ``chat`` on a mock transport, a clock."""
    provider = provider or build_provider(settings)
    chat = (chat or build_chat_client(settings)) if settings.uses_llm else None
    data = PointInTimeData(provider)
    configured = settings.reference_symbols
    label = "configured list (REFERENCE_UNIVERSE)" if configured is not None else f"{provider.name} symbols"
    standing = UniverseStanding(data, configured, label)

    def experts(lang: Language) -> ExpertDispatcher:
        """The five experts writing in ``lang``, on the one data access and universe standing."""

        def agent(rules: ExpertAgent[F, V], expert: str, model: type[V], **slots: Any) -> ExpertAgent[F, V]:
            """The rules engine, or the LLM (then the rules engine when it fails, if LLM_FALLBACK_TO_RULES)."""
            if chat is None:
                return rules
            fallback = rules if settings.llm_fallback_to_rules else None
            gate = NumbersGate(settings.llm_numbers_policy)
            return LLMExpertAgent(chat, expert, model, lang, gate=gate, fallback=fallback, **slots)

        technical = agent(RulesTechnicalAnalystAgent(lang), "technical_analyst", TechnicalVerdict)
        financial = agent(RulesFinancialAuditorAgent(lang), "financial_auditor", FinancialVerdict)
        valuation = agent(RulesValuationModelerAgent(lang), "valuation_modeler", ValuationVerdictModel)
        macro = agent(RulesMacroIntelligenceAgent(lang), "macro_intelligence", MacroVerdict)
        catalyst = agent(RulesCatalystDetectiveAgent(lang), "catalyst_detective", CatalystVerdict, slots=catalyst_slots)
        return ExpertDispatcher(
            TechnicalAnalystService(data, technical, today, standing=standing, language=lang),
            FinancialAuditorService(data, financial, today, standing=standing, language=lang),
            ValuationModelerService(data, valuation, today, standing=standing, language=lang),
            MacroIntelligenceService(data, macro, today, language=lang),
            CatalystDetectiveService(data, catalyst, today, language=lang),
            today,
        )

    dispatchers = ByLanguage.build(settings.report_language, experts)
    engine = EngineInfo(kind="llm", model=chat.model) if chat else EngineInfo(kind="rules")
    return ResearchContainer(settings=settings, provider=provider, dispatchers=dispatchers, engine=engine, chat=chat)


@asynccontextmanager
async def open_container(settings: Settings) -> AsyncIterator[ResearchContainer]:
    """The container built from settings (the offline snapshot read once), closed on exit."""
    container = build_container(settings)
    try:
        yield container
    finally:
        await container.aclose()
