"""Wire models of the coordinator: the research request/response and the session history views."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, computed_field

from shared_contracts.debate import DebateOutcome
from shared_contracts.experts import ISO_DATE_JSON_SCHEMA, ExpertType, IsoDate, ResearchOptions
from shared_contracts.json_schema import DocumentedAs
from shared_contracts.judge import Action, Verdict
from shared_contracts.language import Language, RequestLanguage
from shared_contracts.numbers_check import NumbersCheckRollup
from shared_contracts.research import EXPERT_RESULT_MODELS
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA
from shared_contracts.usage import LLMUsage, ResearchUsage, TokenBudget

ResearchUsageField = Annotated[
    ResearchUsage | None,
    Field(
        exclude_if=lambda value: value is None,
        description="The model calls of each stage and their tokens, in total and new (a retry: without the "
        "carried stages), with their cost when LLM_PRICES is set.",
    ),
]
"""A research answer's and a session's ``usage`` (left out when there is none)."""

OverallStatus = Literal["completed", "partial", "failed"]
SessionStatus = Literal["queued", "running", "completed", "partial", "failed", "cancelled", "interrupted"]
OutcomeStatus = Literal["scored", "pending", "not_scorable", "no_fill", "unavailable"]
_OVERALL_STATUSES: dict[str, OverallStatus] = {"completed": "completed", "partial": "partial", "failed": "failed"}

_OVERALL_STATUS_DESCRIPTION = (
    "The research's outcome (the spec's name): completed (every expert succeeded), partial (some failed), failed "
    "(every expert failed). A session read carries it too, beside its `status`."
)
_SESSION_STATUS_DESCRIPTION = (
    "The session's state: queued, running, then completed, partial or failed (the research's `overall_status`), "
    "cancelled or interrupted. It is not named `overall_status` because a session has states a research answer "
    "has not; `overall_status` says the research's outcome once there is one."
)

ExpertData = Annotated[dict[str, Any] | None, DocumentedAs(*EXPERT_RESULT_MODELS)]
"""An expert's result as research answered it (kept whole, extra fields included), documented as the five
experts' result models; null for a failed expert."""

_EXPERTS_JSON_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "enum": [e.value for e in ExpertType]},
    "minItems": 1,
    "uniqueItems": True,
    "description": "The experts to run, each once.",
}


def _symbol_and_experts_required(schema: dict[str, Any]) -> None:
    schema["required"] = ["symbol", "experts"]
    for name in schema["required"]:
        schema["properties"][name].pop("default", None)


class ResearchRequestBody(BaseModel):
    """A research: ``symbol`` and ``experts`` are required; ``options`` name only requested experts; a date
    given both as ``analysis_date`` and as the technical analyst's option is the same day, never after today.
    A mistake is a 400 whose ``code`` names it (``symbol_required``, ``experts_empty``, ``unknown_expert``, ...)."""

    # Deliberately lenient: the coordinator's application layer validates the values, each mistake with its own
    # code; the API document (WithJsonSchema, json_schema_extra) says what that validation requires.
    model_config = ConfigDict(extra="forbid", json_schema_extra=_symbol_and_experts_required)

    symbol: Annotated[str | None, WithJsonSchema(SYMBOL_JSON_SCHEMA)] = None
    experts: Annotated[list[str] | None, WithJsonSchema(_EXPERTS_JSON_SCHEMA)] = None
    options: Annotated[dict[str, dict[str, Any]] | None, DocumentedAs(ResearchOptions)] = Field(
        default=None, description="Per requested expert, its options (GET /api/v1/research/experts)."
    )
    skip_debate: bool = Field(default=False, strict=True)
    analysis_date: Annotated[str | None, WithJsonSchema({"anyOf": [ISO_DATE_JSON_SCHEMA, {"type": "null"}]})] = Field(
        default=None,
        description=(
            "ISO date (YYYY-MM-DD) the whole research is made as of: every expert uses only data public on it. "
            "Default: options.technical_analyst.analysis_date, else today; both given and different is "
            "400 conflicting_analysis_date."
        ),
    )
    language: RequestLanguage = Field(
        default=None,
        description="The language every expert, the debate and the judge write in: zh or en (default: the "
        "coordinator's REPORT_LANGUAGE; unset, the services' own). Kept with the session and reused by a retry; "
        "anything else is 400 invalid_language.",
    )
    token_budget: TokenBudget = Field(
        default=None,
        description="Tokens this research's model calls may use, below RESEARCH_TOKEN_BUDGET (the lower of the two "
        "applies). Once spent, no further model call is made and the stages not run fail with "
        "token_budget_exhausted (a partial research).",
    )


class ExpertResultEnvelope(BaseModel):
    status: Literal["success", "failed"]
    data: ExpertData = None
    error: str | None = None


class ResearchResponseBody(BaseModel):
    session_id: str
    symbol: str
    analysis_date: IsoDate | None = Field(default=None, description="The day the research was made as of.")
    language: Language | None = Field(
        default=None,
        description="The language its experts, debate and verdict are written in (zh or en); null when neither the "
        "request nor the coordinator's REPORT_LANGUAGE named one (each service wrote in its own).",
    )
    overall_status: OverallStatus = Field(description=_OVERALL_STATUS_DESCRIPTION)
    expert_results: dict[str, ExpertResultEnvelope]
    debate_outcome: DebateOutcome | None
    verdict: Verdict | None
    retry_count: int = Field(ge=0)
    numbers_check: NumbersCheckRollup | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="LLM stages only: the figures of their texts traced to their inputs, per stage and in total.",
    )
    usage: ResearchUsageField = None


class ExpertFailureRecord(BaseModel):
    """How the research service refused the expert (its problem detail)."""

    status: int = Field(description="The research service's HTTP status (404 and 422: refused for good).")
    code: str = Field(description="Its problem code, e.g. data_unavailable, insufficient_history.")
    earliest_usable_date: IsoDate | None = Field(
        default=None, description="For insufficient_history: the first day its data can support, when it said."
    )


class ExpertOutcomeRecord(BaseModel):
    status: Literal["success", "failed"]
    data: ExpertData = None
    error: str | None = None
    duration_ms: float | None = None
    attempts: int = 1
    failure: ExpertFailureRecord | None = Field(
        default=None, description="Set when the research service refused the expert with a problem detail."
    )
    retryable: bool = Field(
        default=False,
        description="Failed, and a retry would ask again: false for a success and for a refusal for good (404 "
        "unknown symbol or no data, 422 too little history), which a retry carries as it is.",
    )


class StageRecord(BaseModel):
    status: Literal["success", "failed", "skipped", "pending"]
    error: str | None = None
    duration_ms: float | None = None


class SessionSummary(BaseModel):
    session_id: str
    symbol: str
    analysis_date: IsoDate | None = Field(
        default=None,
        description="The day the research was made as of (null on sessions stored before it was recorded "
        "that had no technical analyst)",
    )
    language: Language | None = Field(
        default=None,
        description="The language its experts, debate and verdict are written in (zh or en); null when neither the "
        "request nor the coordinator's REPORT_LANGUAGE named one (each service wrote in its own), and on sessions "
        "stored before it was recorded",
    )
    experts: list[str]
    status: SessionStatus = Field(description=_SESSION_STATUS_DESCRIPTION)
    action: Action | None = Field(
        default=None, description="The verdict's action; null while there is no verdict (or none was made)."
    )
    retry_count: int
    retried_from: str | None
    retried_by: str | None = Field(
        default=None, description="The session that retried this one (a session is retried once); retry that one"
    )
    stages_to_retry: list[str] = Field(
        default_factory=list,
        description=(
            "What a retry of this session would re-run (failed experts, debate, judge); empty: nothing failed, "
            "or the session was retried already (retried_by)"
        ),
    )
    created_at: datetime
    updated_at: datetime
    resume_count: int = Field(default=0, description="How often a coordinator resumed it after its own had died.")
    status_reason: str | None = Field(default=None, description="Why it ended so, when that needs saying.")

    @computed_field(  # type: ignore[prop-decorator]
        description="The research's outcome as POST /api/v1/coordinator/research answers it: completed, partial "
        "or failed once the session ended so; null while it is queued or running, or when it was cancelled or "
        "interrupted."
    )
    @property
    def overall_status(self) -> OverallStatus | None:
        return _OVERALL_STATUSES.get(self.status)


class SessionOutcomeRecord(BaseModel):
    """How the session's verdict did on the bars known now (method: docs/evaluation.md)."""

    status: OutcomeStatus = Field(
        description="scored (a stop or target was hit, or the holding period has ended: final), pending (the "
        "holding period has not ended and no level was hit yet), not_scorable (no bar on or before the entry day, "
        "no bars for the symbol, or a verdict without its levels), no_fill (the entry day opened at the daily limit "
        "against the order: a BUY limit-up, a SELL limit-down), unavailable (the bars could not be fetched now)"
    )
    entry_day: IsoDate | None = Field(
        description="The day of the entry open: the first bar after the signal close (the last bar on or before the "
        "technical analyst's as_of, else the analysis date); before that bar exists, the signal day itself"
    )
    entry_price: float | None
    exit_day: IsoDate | None
    exit_price: float | None
    exit_reason: Literal["stop", "target", "horizon"] | None
    holding_days: int = Field(ge=0, description="Trading days held (0 until scored).")
    call_return: float | None = Field(description="The call's return: long for BUY, short for SELL, null for HOLD.")
    realised_return: float | None = Field(description="What the position earned: SELL is flat (no shorting), HOLD 0.")
    underlying_return: float | None = Field(description="The stock over the same days.")
    profitable: bool | None = Field(description="A BUY or SELL call that made money; null for HOLD or unscored.")
    reason: str | None = Field(description="Why it is pending, not scorable or unavailable.")


class SessionDetail(SessionSummary):
    model_config = ConfigDict(extra="allow")

    request: dict[str, Any]
    request_id: str | None
    requested_by: str | None = Field(
        default=None,
        description="The client whose key started this session: its owner, or the admin who retried another "
        "client's session (null on sessions stored before it was recorded)",
    )
    expert_results: dict[str, ExpertOutcomeRecord]
    debate: StageRecord
    debate_outcome: DebateOutcome | None
    judge: StageRecord
    verdict: Verdict | None
    completed_at: datetime | None
    queue_position: int | None = Field(default=None, description="Its place in the queue while it is queued.")
    outcome: SessionOutcomeRecord | None = Field(
        default=None, description="How the verdict did so far; null for a session without a verdict."
    )
    numbers_check: NumbersCheckRollup | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="LLM stages only: the stored results' numbers checks, per stage and in total.",
    )
    usage: ResearchUsageField = None


class SessionPage(BaseModel):
    items: list[SessionSummary]
    total: int
    limit: int
    offset: int


class ScorecardFilters(BaseModel):
    symbol: str | None = Field(description="Canonical symbol, or null: every symbol.")
    engine: str | None = Field(description="rules or an LLM model (the verdict's engine), or null: every engine.")
    start: IsoDate | None = Field(description="First analysis date (inclusive), or null.")
    end: IsoDate | None = Field(description="Last analysis date (inclusive), or null.")


class Scorecard(BaseModel):
    """``GET /api/v1/coordinator/scorecard``: stored verdicts scored on the bars known now. ``per_action`` and
    ``calibration`` are the evaluation report's sections (``verdict_statistics.scorecard``), so the figures mean
    the same; the method is docs/evaluation.md."""

    filters: ScorecardFilters
    sessions: int = Field(ge=0, description="Sessions scored: with a verdict, not retried, matching, newest first.")
    scored: int = Field(ge=0)
    pending: int = Field(ge=0)
    not_scorable: int = Field(ge=0)
    no_fill: int = Field(
        ge=0, description="Sessions whose entry day opened at the daily limit against the order (no trade)."
    )
    unavailable: int = Field(ge=0, description="Sessions whose bars could not be fetched (left out of per_action).")
    actions: dict[str, int] = Field(description="BUY / SELL / HOLD: how many of the sessions' verdicts.")
    per_action: dict[str, dict[str, Any]] = Field(
        description="BUY / SELL / HOLD: counts by status, hit rate (Wilson 95 % CI), call return mean (t 95 % CI) "
        "and median, realised and underlying return means, exits by reason, mean days held."
    )
    calibration: dict[str, Any] = Field(
        description="Confidence against outcome over the scored BUY and SELL calls: decile bins and Brier score."
    )
    ic: dict[str, Any] = Field(
        description="The information coefficient: per month of analysis dates, the Spearman rank correlation of "
        "the verdicts' score (verdict.score, else the debate's confidence signed by its direction) with the "
        "stock's next 20 trading days' return entered at the next open, over one session per symbol and date (the "
        "newest); a month counts with at least `min_per_month` (10) such sessions. `mean`: the mean over those "
        "months with its t 95 % interval (n = months); `months`: [{month, n, ic}]; `positive_months`: the share "
        "of months with IC > 0 (Wilson); `observations`: the sessions ranked."
    )
    benchmarks: dict[str, Any] | None = Field(
        default=None,
        description="The score beside the simplest factor that could explain it. `liquidity`: the IC section (same "
        "keys as `ic`) of −log of the stock's mean traded value (close × volume) over the 20 bars up to and "
        "including the entry day, on the sessions ranked by `ic` whose 20 bars of volume are known "
        "(`without_liquidity`: those left out) and against the same return; `score_mean`: the score's mean IC on "
        "those same sessions; `paired_difference`: the score's IC minus the factor's, paired by month (mean, t 95 % "
        "interval, n = months); `statement`: what that says. Null when fewer than 2 months have both ICs "
        "(`benchmarks_reason` says why).",
    )
    ic_size_neutral: dict[str, Any] | None = Field(
        default=None,
        description="The IC section (same keys as `ic`) of the score residualised on log traded value within each "
        "month (OLS with an intercept; 0 for a month whose residual is nil), over the sessions of "
        "`benchmarks.liquidity`. Null when `benchmarks` is.",
    )
    benchmarks_reason: str | None = Field(
        default=None, description="Why `benchmarks` and `ic_size_neutral` are null (too few months); else null."
    )
    as_of: IsoDate | None = Field(description="The latest bar day used; null when no bars were had.")
    matching: int = Field(ge=0, description="Sessions matching the filters in all.")
    limit: int = Field(ge=1, description="At most this many sessions (the newest) are scored.")
    truncated: bool = Field(description="More sessions matched than were scored (matching > sessions).")
    unavailable_symbols: dict[str, str] = Field(
        default_factory=dict, description="Symbols whose bars could not be fetched, and why."
    )
    method: str = Field(default="docs/evaluation.md", description="Where the scoring method is written down.")


class JobLinks(BaseModel):
    self_: str = Field(alias="self", description="The session (GET).")
    events: str = Field(description="Its event stream (GET, text/event-stream).")
    cancel: str = Field(description="Cancel it (POST).")

    model_config = ConfigDict(populate_by_name=True)


class ResearchAccepted(BaseModel):
    """The answer to a research or retry submitted with ``Prefer: respond-async`` (202)."""

    session_id: str
    status: SessionStatus
    queue_position: int | None = Field(default=None, description="Its place in the queue while it is queued.")
    links: JobLinks


def job_links(session_id: str, prefix: str = "/api/v1/coordinator") -> JobLinks:
    session = f"{prefix}/sessions/{session_id}"
    return JobLinks(self_=session, events=f"{session}/events", cancel=f"{session}/cancel")


class UsageRow(BaseModel):
    """The model calls of one day (UTC, the day the session ended) to one model, summed."""

    day: IsoDate
    model: str = Field(description="The model the calls named (empty: the endpoint named none).")
    client_id: str | None = Field(default=None, description="The client (an admin's view: every client's rows).")
    usage: LLMUsage
    cost: float | None = Field(default=None, description="At LLM_PRICES; null without a price for the model.")


class UsageReport(BaseModel):
    """``GET /api/v1/coordinator/usage``: the caller's LLM usage by day and model (an admin: every client's, per
    client). A retry counts only the calls it made (its carried stages were counted on their own session)."""

    start: IsoDate
    end: IsoDate
    rows: list[UsageRow]
    total: LLMUsage
    cost: float | None = Field(default=None, description="The rows' cost summed; null when a row has none.")
