"""Wire models of the debate service (debate spec: DebateOutcomeDTO and its parts)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from shared_contracts.engine import EngineInfo
from shared_contracts.experts import KNOWN_SIGNALS
from shared_contracts.json_schema import InlineEnum
from shared_contracts.language import LANGUAGE_DESCRIPTION, RequestLanguage
from shared_contracts.numbers_check import NumbersCheck
from shared_contracts.projection import ExpertDataQuality
from shared_contracts.standing import CompositeStanding, SignedUnit, UnitShare
from shared_contracts.usage import LLMUsage

Direction = Literal["BULLISH", "BEARISH", "NEUTRAL"]


class RiskLevel(InlineEnum):
    """A risk's probability or impact, and an argument's strength (debate spec, "Domain 枚举定义")."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


TICKER_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._\-]{0,31}"
"""A ticker-like code (``600519.SH``, ``AAPL``, ``BRK.B``): the debate's symbol (it appears in prompts unfenced)."""
EXPERT_NAME_PATTERN = r"[A-Za-z0-9_\-]{1,64}"
"""Expert names appear in prompts and texts, so they are plain identifiers."""
MAX_DEBATE_EXPERTS = 10

_NAME_JSON_SCHEMA: dict[str, Any] = {"type": "string", "pattern": f"^{EXPERT_NAME_PATTERN}$"}
_SUMMARY_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ExpertSummaryInput",
    "description": "An expert's result in the summary form (the debate spec's four fields, and the counts' lists).",
    "required": ["signal", "confidence", "reasoning", "risk_warning"],
    "properties": {
        "signal": {"type": "string", "enum": list(KNOWN_SIGNALS)},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": {"type": "string"},
        "risk_warning": {"type": "string"},
        "data_gaps": {"type": "array", "items": {"type": "string"}},
        "staleness": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}
_EXPERT_RESULTS_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": MAX_DEBATE_EXPERTS,
    "propertyNames": _NAME_JSON_SCHEMA,
    "additionalProperties": _SUMMARY_JSON_SCHEMA,
}
_FAILED_EXPERTS_JSON_SCHEMA: dict[str, Any] = {
    "anyOf": [{"type": "array", "items": _NAME_JSON_SCHEMA, "maxItems": MAX_DEBATE_EXPERTS}, {"type": "null"}]
}


def _symbol_and_results_required(schema: dict[str, Any]) -> None:
    schema["required"] = ["symbol", "expert_results"]
    for name in schema["required"]:
        schema["properties"][name].pop("default", None)


class DebateRunRequest(BaseModel):
    """``expert_results`` values may be raw research results, coordinator envelopes
    (``{status, data|error}``) or already-normalized summaries (which may carry the result's ``data_gaps``
    and ``staleness`` lists, so the debate can weigh each expert by how much of its data it had).

    ``failed_experts`` names experts that were asked for but failed: missing evidence, which can only lower
    the debate's confidence. A failed envelope in ``expert_results`` counts as one too.

    ``data_quality`` gives, per expert, how many ``data_gaps`` and ``staleness`` notes its result had, for
    callers that send the spec's four-field summaries (the coordinator); it wins over counts read from
    ``expert_results``."""

    # Deliberately lenient: the debate validates the values, each mistake with its own code. The API document
    # (WithJsonSchema, json_schema_extra) says what that validation requires, and lists expert_results values in
    # the summary form only; raw results and envelopes are read too (this docstring).
    model_config = ConfigDict(extra="forbid", json_schema_extra=_symbol_and_results_required)

    symbol: Annotated[str | None, WithJsonSchema({"type": "string", "pattern": f"^\\s*{TICKER_PATTERN}\\s*$"})] = Field(
        default=None, description="A ticker-like code (600519.SH, AAPL, BRK.B); 1-32 characters."
    )
    expert_results: Annotated[dict[str, Any] | None, WithJsonSchema(_EXPERT_RESULTS_JSON_SCHEMA)] = Field(
        default=None, description="Per expert (1-10), its result; a failed expert is not one of them."
    )
    failed_experts: Annotated[list[str] | None, WithJsonSchema(_FAILED_EXPERTS_JSON_SCHEMA)] = Field(
        default=None, description="Experts asked for that failed (none of them in expert_results)."
    )
    data_quality: dict[str, ExpertDataQuality] | None = None
    composite: CompositeStanding | None = Field(
        default=None,
        description="The stock's composite standing in its reference universe (the research's "
        "relative_standing.composite); read from expert_results when not given. With it the debate's direction "
        "follows the stock's standing, not the experts' votes.",
    )
    language: RequestLanguage = Field(default=None, description=LANGUAGE_DESCRIPTION)


class SupportingArgument(BaseModel):
    argument: str
    evidence: str
    source_experts: list[str] = Field(default_factory=list)
    strength: RiskLevel


class BullCase(BaseModel):
    core_thesis: str
    supporting_arguments: list[SupportingArgument]
    acknowledged_risks: list[str]


class BearCase(BaseModel):
    core_thesis: str
    supporting_arguments: list[SupportingArgument]
    acknowledged_strengths: list[str]


class RiskItem(BaseModel):
    risk: str
    probability: RiskLevel
    impact: RiskLevel
    mitigation: str


class ExpertCoverage(BaseModel):
    """How much of its own data one answering expert had: ``coverage`` (0–1) from its counts of data gaps
    and stale inputs (services/debate/README.md, "Coverage")."""

    coverage: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    data_gaps: int = Field(ge=0)
    staleness: int = Field(ge=0)


class DebateCoverage(BaseModel):
    """How much of the evidence asked for the debate heard."""

    experts_asked: int = Field(ge=0, description="answered + failed")
    experts_answered: int = Field(ge=0)
    failed_experts: list[str] = Field(default_factory=list)
    evidence_share: float = Field(
        ge=0.0, le=1.0, allow_inf_nan=False, description="Σ coverage of the answering experts / experts asked"
    )
    experts: dict[str, ExpertCoverage] = Field(default_factory=dict, description="each answering expert's coverage")


class Contribution(BaseModel):
    """One expert's part of the debate's score. A voting expert (technical, valuation, financial: its factor
    family of the composite) has the signal and confidence of its own standing, the family's weight and
    ``contribution = weight × family score``; every other expert (macro: exposure only; catalyst: events and
    risks) is listed with weight 0 and contribution 0. The contributions sum to the outcome's ``score``."""

    expert: str
    signal: str = Field(description="BULLISH / BEARISH / NEUTRAL (a non-voting expert: its own reported stance).")
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False, description="|2·percentile − 1| for a voter.")
    weight: float = Field(ge=0.0, le=1.0, allow_inf_nan=False, description="Its share of the score (0: no vote).")
    contribution: float = Field(ge=-1.0, le=1.0, allow_inf_nan=False, description="weight × its family's score.")
    percentile: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        exclude_if=lambda value: value is None,
        description="Where its dimension alone ranks the stock among the universe's composite scores.",
    )
    votes: bool = Field(description="Whether it votes on the direction (a voting expert with standing data).")
    note: str = Field(default="", description="Why it does not vote, when it does not.")


NON_VOTE_REASONS = {
    "market_wide": "market-wide view: it sets the judge's exposure only",
    "events": "it reports events and risks",
    "no_standing_data": "its factor family had no comparable data on the day",
    "not_a_family": "it is not a factor family of the composite",
}
"""Why a ``Contribution`` does not vote, in words (its ``note``)."""


def contribution_line(c: Contribution) -> str:
    """One expert's contribution as a prompt states it, e.g. ``technical_analyst: signal BULLISH, confidence 0.72,
    weight 0.80, contribution +0.42, percentile 0.86``."""
    if not c.votes:
        return f"{c.expert}: does not vote ({NON_VOTE_REASONS.get(c.note, c.note or 'no vote')}); weight 0"
    percentile = "no percentile" if c.percentile is None else f"percentile {c.percentile:.2f}"
    return (
        f"{c.expert}: signal {c.signal}, confidence {c.confidence:.2f}, weight {c.weight:.2f}, "
        f"contribution {c.contribution:+.2f}, {percentile}"
    )


class DebateOutcome(BaseModel):
    symbol: str
    direction: Direction
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    bull_case: BullCase
    bear_case: BearCase
    risk_matrix: list[RiskItem]
    key_disagreements: list[str]
    conflict_resolution: str
    engine: EngineInfo
    score: SignedUnit | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The stock's composite score in [-1, 1] the direction follows (None: no relative evidence, "
        "the experts' weighed votes set the direction).",
    )
    universe_rank: UnitShare | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The score's percentile among the reference universe on the analysis date.",
    )
    standing_coverage: UnitShare | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Share of the composite's weight that had data for this stock.",
    )
    contributions: list[Contribution] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="One item per expert: its signal, confidence, weight and contribution; the contributions sum "
        "to ``score`` (present whenever ``score`` is).",
    )
    coverage: DebateCoverage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Who answered, who failed and how much of their data they had (both engines); optional, "
        "and left out of the serialised outcome when absent, so the spec's shape stays as it was.",
    )
    usage: LLMUsage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The model calls made for it and their tokens (rules engine: zero calls).",
    )
    numbers_check: NumbersCheck | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="LLM debates: the figures of the bull, bear and resolution texts traced to their inputs.",
    )
