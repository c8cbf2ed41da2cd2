"""The five experts, their options, and the vocabularies of their headline verdicts."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema


class ExpertType(StrEnum):
    TECHNICAL_ANALYST = "technical_analyst"
    FINANCIAL_AUDITOR = "financial_auditor"
    VALUATION_MODELER = "valuation_modeler"
    MACRO_INTELLIGENCE = "macro_intelligence"
    CATALYST_DETECTIVE = "catalyst_detective"


EXPERT_LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "technical_analyst": "技术分析师",
        "financial_auditor": "财务审计师",
        "valuation_modeler": "估值建模师",
        "macro_intelligence": "宏观情报员",
        "catalyst_detective": "催化剂侦探",
    },
    "en": {
        "technical_analyst": "Technical analyst",
        "financial_auditor": "Financial auditor",
        "valuation_modeler": "Valuation modeler",
        "macro_intelligence": "Macro intelligence",
        "catalyst_detective": "Catalyst detective",
    },
}
"""Each expert's name in the narrative, per report language (an unknown expert is named by its key)."""


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


KNOWN_SIGNALS: tuple[str, ...] = tuple(str(word) for word in _STANCE)
"""Every expert's headline verdict words (any case is read): what ``stance_of`` knows."""


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


def _json_integer(value: Any) -> Any:
    """An integer as JSON Schema has it: ``5`` or ``5.0``; pydantic's lax mode would also take ``"5"`` and
    ``true``, its strict mode would refuse ``5.0``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be an integer, not {type(value).__name__}")
    return value


JsonInt = Annotated[int, BeforeValidator(_json_integer)]


class TechnicalAnalystOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    analysis_date: IsoDate | None = Field(
        default=None,
        description="ISO date; the last trading day on or before it is analysed. Default: today.",
    )


FINANCIAL_LIMIT_MAX = 20


class FinancialAuditorOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: JsonInt = Field(default=5, ge=1, le=FINANCIAL_LIMIT_MAX, description="Annual periods analysed.")


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


EXPERT_OPTION_MODELS: dict[ExpertType, type[BaseModel]] = {
    ExpertType.TECHNICAL_ANALYST: TechnicalAnalystOptions,
    ExpertType.FINANCIAL_AUDITOR: FinancialAuditorOptions,
    ExpertType.VALUATION_MODELER: NoOptions,
    ExpertType.MACRO_INTELLIGENCE: NoOptions,
    ExpertType.CATALYST_DETECTIVE: NoOptions,
}

ISO_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
ISO_DATE_JSON_SCHEMA: dict[str, Any] = {"type": "string", "format": "date", "pattern": ISO_DATE_PATTERN}
"""What the API documents say a date is (``is_iso_date``), for the fields typed ``str`` that check it themselves
(each mistake answered with its own problem code)."""


class ResearchOptions(BaseModel):
    """The ``options`` of a research: per requested expert, that expert's options (``EXPERT_OPTION_MODELS``).
    Published as a component schema; the coordinator validates the values itself (``invalid_options``)."""

    model_config = ConfigDict(extra="forbid")

    technical_analyst: TechnicalAnalystOptions | SkipJsonSchema[None] = None
    financial_auditor: FinancialAuditorOptions | SkipJsonSchema[None] = None
    valuation_modeler: NoOptions | SkipJsonSchema[None] = None
    macro_intelligence: NoOptions | SkipJsonSchema[None] = None
    catalyst_detective: NoOptions | SkipJsonSchema[None] = None
