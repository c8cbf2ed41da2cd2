"""Wire models of the coordinator: the research request/response and the session history views."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared_contracts.debate import DebateOutcome
from shared_contracts.experts import IsoDate
from shared_contracts.judge import Verdict

OverallStatus = Literal["completed", "partial", "failed"]
SessionStatus = Literal["running", "completed", "partial", "failed", "interrupted"]


class ResearchRequestBody(BaseModel):
    """Deliberately lenient: the coordinator's application layer validates the values and answers
    with distinguishable codes (``symbol_required``, ``experts_empty``, ``unknown_expert``, ...)."""

    model_config = ConfigDict(extra="forbid")

    symbol: str | None = None
    experts: list[str] | None = None
    options: dict[str, dict[str, Any]] | None = None
    skip_debate: bool = Field(default=False, strict=True)
    analysis_date: str | None = Field(
        default=None,
        description=(
            "ISO date (YYYY-MM-DD) the whole research is made as of: every expert uses only data public on it. "
            "Default: options.technical_analyst.analysis_date, else today; both given and different is "
            "400 conflicting_analysis_date."
        ),
    )


class ExpertResultEnvelope(BaseModel):
    status: Literal["success", "failed"]
    data: dict[str, Any] | None = None
    error: str | None = None


class ResearchResponseBody(BaseModel):
    session_id: str
    symbol: str
    analysis_date: IsoDate | None = Field(default=None, description="The day the research was made as of.")
    overall_status: OverallStatus
    expert_results: dict[str, ExpertResultEnvelope]
    debate_outcome: DebateOutcome | None
    verdict: Verdict | None
    retry_count: int = Field(ge=0)


class ExpertOutcomeRecord(BaseModel):
    status: Literal["success", "failed"]
    data: dict[str, Any] | None = None
    error: str | None = None
    duration_ms: float | None = None
    attempts: int = 1


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
    experts: list[str]
    status: SessionStatus
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


class SessionDetail(SessionSummary):
    model_config = ConfigDict(extra="allow")

    request: dict[str, Any]
    request_id: str | None
    expert_results: dict[str, ExpertOutcomeRecord]
    debate: StageRecord
    debate_outcome: dict[str, Any] | None
    judge: StageRecord
    verdict: dict[str, Any] | None
    completed_at: datetime | None


class SessionPage(BaseModel):
    items: list[SessionSummary]
    total: int
    limit: int
    offset: int
