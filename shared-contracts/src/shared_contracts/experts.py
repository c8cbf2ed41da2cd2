"""The five experts, their options, and the vocabularies of their headline verdicts."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


class ExpertType(StrEnum):
    TECHNICAL_ANALYST = "technical_analyst"
    FINANCIAL_AUDITOR = "financial_auditor"
    VALUATION_MODELER = "valuation_modeler"
    MACRO_INTELLIGENCE = "macro_intelligence"
    CATALYST_DETECTIVE = "catalyst_detective"


class Signal(StrEnum):
    """Technical analyst and financial auditor signal."""

    BULLISH = "BULLISH"
    BEARISH = "BEARISH"
    NEUTRAL = "NEUTRAL"


class ValuationVerdict(StrEnum):
    UNDERVALUED = "UNDERVALUED"
    FAIRLY_VALUED = "FAIRLY_VALUED"
    OVERVALUED = "OVERVALUED"


class MacroEnvironment(StrEnum):
    FAVORABLE = "FAVORABLE"
    NEUTRAL = "NEUTRAL"
    UNFAVORABLE = "UNFAVORABLE"


class CatalystAssessment(StrEnum):
    POSITIVE = "POSITIVE"
    NEUTRAL = "NEUTRAL"
    NEGATIVE = "NEGATIVE"


_STANCE: dict[str, Signal] = {
    **{s.value: s for s in Signal},
    ValuationVerdict.UNDERVALUED: Signal.BULLISH,
    ValuationVerdict.FAIRLY_VALUED: Signal.NEUTRAL,
    ValuationVerdict.OVERVALUED: Signal.BEARISH,
    MacroEnvironment.FAVORABLE: Signal.BULLISH,
    MacroEnvironment.UNFAVORABLE: Signal.BEARISH,
    CatalystAssessment.POSITIVE: Signal.BULLISH,
    CatalystAssessment.NEGATIVE: Signal.BEARISH,
}


def stance_of(signal: str) -> Signal | None:
    """Map any expert's headline verdict to BULLISH/BEARISH/NEUTRAL; None when the word is unknown."""
    return _STANCE.get(signal.strip().upper())


_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def is_iso_date(value: Any) -> bool:
    """A ``YYYY-MM-DD`` string naming a real day."""
    if not (isinstance(value, str) and _ISO_DATE.match(value)):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _iso_date_text(value: Any) -> Any:
    """Only a ``YYYY-MM-DD`` string (or a date) is a date: pydantic alone would also read 20250930 and
    1759190400 (seconds since 1970) as dates."""
    if isinstance(value, date) or is_iso_date(value):
        return value
    raise ValueError(f"must be an ISO date string, YYYY-MM-DD, of a real day (got {value!r})"[:120])


IsoDate = Annotated[date, BeforeValidator(_iso_date_text)]


class TechnicalAnalystOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    analysis_date: IsoDate | None = Field(
        default=None,
        description="ISO date; the last trading day on or before it is analysed. Default: today.",
    )


FINANCIAL_LIMIT_MAX = 20


class FinancialAuditorOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(default=5, ge=1, le=FINANCIAL_LIMIT_MAX, strict=True, description="Annual periods analysed.")


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


EXPERT_OPTION_MODELS: dict[ExpertType, type[BaseModel]] = {
    ExpertType.TECHNICAL_ANALYST: TechnicalAnalystOptions,
    ExpertType.FINANCIAL_AUDITOR: FinancialAuditorOptions,
    ExpertType.VALUATION_MODELER: NoOptions,
    ExpertType.MACRO_INTELLIGENCE: NoOptions,
    ExpertType.CATALYST_DETECTIVE: NoOptions,
}
