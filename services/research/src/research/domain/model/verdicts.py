"""What an analysing engine (LLM or rules) concludes for each expert: the headline fields, validated.

The same models validate the LLM's JSON and the rules engine's output, so both engines are held to one
contract: enums, confidences in [0, 1] (NaN rejected), capped text lengths and list sizes. Unknown keys
in the LLM's answer are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from shared_contracts.engine import EngineInfo
from shared_contracts.experts import CatalystAssessment, MacroEnvironment, Signal, ValuationVerdict, is_iso_date
from shared_contracts.numbers_check import NumbersCheck

SUMMARY_MAX = 2000
ITEM_MAX = 400
LIST_MAX = 10

Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Summary = Annotated[str, Field(min_length=1, max_length=SUMMARY_MAX)]
Item = Annotated[str, Field(min_length=1, max_length=ITEM_MAX)]


class _Verdict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class TechnicalVerdict(_Verdict):
    signal: Signal
    confidence: Confidence
    summary_reasoning: Summary
    risk_warning: Annotated[str, Field(max_length=SUMMARY_MAX)]


class DimensionAnalysis(_Verdict):
    dimension: Literal["growth", "profitability", "cash_flow", "leverage", "shareholder_return"]
    assessment: Literal["POSITIVE", "NEUTRAL", "NEGATIVE", "NOT_ASSESSED"]
    comment: Item


class FinancialVerdict(_Verdict):
    signal: Signal
    confidence: Confidence
    summary_reasoning: Summary
    risk_warning: Annotated[str, Field(max_length=SUMMARY_MAX)]
    dimension_analyses: list[DimensionAnalysis] = Field(max_length=LIST_MAX)


class ValuationVerdictModel(_Verdict):
    valuation_verdict: ValuationVerdict
    confidence_score: Confidence
    reasoning_summary: Summary
    risk_factors: list[Item] = Field(max_length=LIST_MAX)


class MacroVerdict(_Verdict):
    macro_environment: MacroEnvironment
    confidence_score: Confidence
    macro_summary: Summary
    key_risks: list[Item] = Field(max_length=LIST_MAX)


def _real_day(value: str) -> str:
    if not is_iso_date(value):
        raise ValueError("must be a YYYY-MM-DD date of a real day, or null")
    return value


class CatalystPoint(_Verdict):
    title: Annotated[str, Field(min_length=1, max_length=200)]
    description: Item
    date: Annotated[str, AfterValidator(_real_day)] | None = None


class CatalystVerdict(_Verdict):
    catalyst_assessment: CatalystAssessment
    confidence_score: Confidence
    catalyst_summary: Summary
    positive_catalysts: list[CatalystPoint] = Field(max_length=LIST_MAX)
    negative_catalysts: list[CatalystPoint] = Field(max_length=LIST_MAX)


V = TypeVar("V", bound=BaseModel)


@dataclass(frozen=True)
class AgentAnswer(Generic[V]):
    """An engine's verdict plus what it saw and said: ``input`` (prompt or rule inputs), ``output``
    (raw LLM text or the rules trace), which engine answered and, for an LLM answer, what the numbers gate
    found in its texts."""

    verdict: V
    engine: EngineInfo
    input: Any
    output: Any
    numbers_check: NumbersCheck | None = None
