"""Wire models of the research service: the expert catalogue, a run request, and each expert's result.

Result models name the headline fields the debate projection reads (ARCHITECTURE.md, "Expert result
shapes"); they allow extra fields so an expert may carry more detail without a contract change.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.engine import EngineInfo
from shared_contracts.experts import CatalystAssessment, MacroEnvironment, Signal, ValuationVerdict

Confidence = Field(ge=0.0, le=1.0, allow_inf_nan=False)


class ExpertRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    options: dict[str, Any] | None = None


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
