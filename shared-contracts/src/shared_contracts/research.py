"""Wire models of the research service: the expert catalogue, a run request, and each expert's result.

Result models name the headline fields the debate projection reads (ARCHITECTURE.md, "Expert result
shapes"); they allow extra fields so an expert may carry more detail without a contract change.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, WithJsonSchema

from shared_contracts.engine import EngineInfo
from shared_contracts.experts import (
    EXPERT_OPTION_MODELS,
    CatalystAssessment,
    IsoDate,
    MacroEnvironment,
    Signal,
    ValuationVerdict,
)
from shared_contracts.json_schema import DocumentedAs
from shared_contracts.language import LANGUAGE_DESCRIPTION, RequestLanguage
from shared_contracts.numbers_check import NumbersCheck
from shared_contracts.standing import RelativeStanding
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA
from shared_contracts.usage import LLMUsage

Confidence = Field(ge=0.0, le=1.0, allow_inf_nan=False)


class ExpertRunRequest(BaseModel):
    """``analysis_date`` dates the whole research: every input is one public on that day. Without it, the
    technical analyst's ``options.analysis_date`` dates it, else today (never a day after today); both given
    and different is a 400 ``conflicting_analysis_date``."""

    model_config = ConfigDict(extra="forbid")

    symbol: Annotated[str, WithJsonSchema(SYMBOL_JSON_SCHEMA)]
    analysis_date: IsoDate | None = Field(default=None, description="ISO date the research is made as of.")
    options: Annotated[dict[str, Any] | None, DocumentedAs(*dict.fromkeys(EXPERT_OPTION_MODELS.values()))] = Field(
        default=None,
        description="The options of the expert named in the path (GET /api/v1/research/experts lists them).",
    )
    language: RequestLanguage = Field(default=None, description=LANGUAGE_DESCRIPTION)


class ExpertOptionSpec(BaseModel):
    name: str
    type: str = Field(description="JSON type(s), e.g. 'string (date) | null' or 'integer'.")
    default: Any = None
    description: str
    minimum: int | float | None = Field(default=None, description="Smallest accepted value, for numbers.")
    maximum: int | float | None = Field(default=None, description="Largest accepted value, for numbers.")


class ExpertDescriptor(BaseModel):
    name: str
    title: str
    description: str
    options: list[ExpertOptionSpec]


class ExpertCatalog(BaseModel):
    experts: list[ExpertDescriptor]
    engine: EngineInfo
    data_provider: str


class ExpertResultBase(BaseModel):
    """What every expert result carries besides its headline fields."""

    model_config = ConfigDict(extra="allow")

    symbol: str
    as_of: str = Field(description="Date of the latest data point used (ISO).")
    data_source: str
    engine: EngineInfo
    input: Any = Field(description="The prompt sent to the LLM, or the rule inputs.")
    output: Any = Field(description="The raw LLM text, or the rules engine's trace.")
    data_gaps: list[str] = Field(default_factory=list, description="What the data did not have.")
    analysis_date: str | None = Field(default=None, description="The day the research is made as of (ISO).")
    inputs_as_of: dict[str, Any] = Field(
        default_factory=dict, description="Each input's date: which data each figure came from and as of when."
    )
    staleness: list[str] = Field(
        default_factory=list, description="Inputs older than their documented threshold on the analysis date."
    )
    relative_standing: RelativeStanding | None = Field(
        default=None,
        description="Where the stock stands against its reference universe on the analysis date: this expert's "
        "factor percentiles and the research's composite (technical analyst, valuation modeler, financial auditor).",
    )
    engine_signal: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="A voting expert with a standing: the engine's own read of the absolute indicators (context, "
        "not the vote; the headline signal comes from the standing).",
    )
    numbers_check: NumbersCheck | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="LLM answers: the figures of the free-text fields traced to the call's input (rules: absent).",
    )
    usage: LLMUsage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The model calls made for it and their tokens (rules engine: zero calls).",
    )


class TechnicalAnalystResult(ExpertResultBase):
    signal: Signal
    confidence: float = Confidence
    summary_reasoning: str
    risk_warning: str
    key_technical_levels: dict[str, Any]
    technical_indicators: dict[str, Any]


class FinancialAuditorResult(ExpertResultBase):
    signal: Signal
    confidence: float = Confidence
    summary_reasoning: str
    risk_warning: str
    financial_indicators: dict[str, Any]
    dimension_analyses: list[dict[str, Any]]


class ValuationModelerResult(ExpertResultBase):
    valuation_verdict: ValuationVerdict
    confidence_score: float = Confidence
    reasoning_summary: str
    risk_factors: list[str]
    estimated_intrinsic_value_range: dict[str, Any]
    valuation_indicators: dict[str, Any]


class MacroIntelligenceResult(ExpertResultBase):
    macro_environment: MacroEnvironment
    confidence_score: float = Confidence
    macro_summary: str
    key_risks: list[str]
    macro_indicators: dict[str, Any]
    information_sources: list[str]


class CatalystItem(BaseModel):
    model_config = ConfigDict(extra="allow")

    title: str
    description: str
    date: str | None = None


class CatalystResult(BaseModel):
    catalyst_assessment: CatalystAssessment
    confidence_score: float = Confidence
    catalyst_summary: str
    positive_catalysts: list[CatalystItem]
    negative_catalysts: list[CatalystItem]


class CatalystDetectiveResult(BaseModel):
    """The catalyst detective's wire shape: headline fields nested under ``result``."""

    model_config = ConfigDict(extra="allow")

    symbol: str
    result: CatalystResult
    raw_llm_output: str | None
    user_prompt: str | None
    catalyst_context: dict[str, Any]
    as_of: str
    data_source: str
    engine: EngineInfo
    data_gaps: list[str] = Field(default_factory=list)
    input: Any = Field(default=None, description="The prompt sent to the LLM, or the rule inputs.")
    output: Any = Field(default=None, description="The raw LLM text, or the rules engine's trace.")
    analysis_date: str | None = None
    inputs_as_of: dict[str, Any] = Field(default_factory=dict)
    staleness: list[str] = Field(default_factory=list)
    usage: LLMUsage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The model calls made for it and their tokens (rules engine: zero calls).",
    )


EXPERT_RESULT_MODELS: tuple[type[BaseModel], ...] = (
    TechnicalAnalystResult,
    FinancialAuditorResult,
    ValuationModelerResult,
    MacroIntelligenceResult,
    CatalystDetectiveResult,
)
"""The five experts' result models, in ``ExpertType`` order."""


class ExpertResult(RootModel[Annotated[dict[str, Any], DocumentedAs(*EXPERT_RESULT_MODELS, nullable=False)]]):
    """One expert's result, kept whole (its extra fields included), documented as the five result models."""


class DateSpan(BaseModel):
    first: str
    last: str
    count: int = Field(ge=0)


class UniverseSymbol(BaseModel):
    """What the offline data has for one symbol: bar days, annual report period ends, valuation snapshot days."""

    symbol: str
    market: str
    bars: DateSpan | None = None
    financials: DateSpan | None = None
    valuation: DateSpan | None = None


class Universe(BaseModel):
    """``GET /api/v1/research/universe``: the symbols the data provider can analyse. A live provider is
    open-ended (``open_ended: true``, no list)."""

    data_provider: str
    open_ended: bool
    count: int = Field(ge=0)
    symbols: list[UniverseSymbol]


class PriceBar(BaseModel):
    date: str
    open: float
    high: float
    low: float
    close: float
    volume: float


class PriceBars(BaseModel):
    """``GET /api/v1/research/bars/{symbol}?start=&end=``: daily bars as the data source has them, oldest first."""

    symbol: str
    data_source: str
    source: str = Field(description="Where the bars come from (provenance).")
    adjustment: str = Field(description="qfq (forward-adjusted), adjusted (split/dividend) or raw.")
    start: str | None
    end: str | None
    count: int = Field(ge=0)
    bars: list[PriceBar]
