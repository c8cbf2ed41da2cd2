"""What the orchestration port takes and gives: a validated request and the gathered result."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from coordinator.domain.model.enums import ExpertType
from shared_contracts.language import Language
from shared_contracts.usage import TOKEN_BUDGET_EXHAUSTED, LLMUsage, ResearchUsage

OverallStatus = Literal["completed", "partial", "failed"]
PERMANENT_FAILURE_STATUSES = frozenset({404, 422})


class ResearchRequest(BaseModel):
    """A validated request: experts are known and distinct, options are explicit (defaults resolved).

    ``analysis_date``: the one day the whole research is made as of (every expert is asked for it);
    None only for a request built without one (the research service then uses today).
    ``carried_results`` / ``carried_debate_outcome`` are what a retry keeps from its source session:
    carried experts are not called again and a carried debate outcome is used instead of a new debate.
    """

    model_config = ConfigDict(frozen=True)

    symbol: str = Field(min_length=1)
    experts: list[ExpertType] = Field(min_length=1)
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    analysis_date: date | None = None
    language: Language | None = None
    """The language every expert, the debate and the judge write in (None: each service's REPORT_LANGUAGE)."""
    skip_debate: bool = False
    carried_results: dict[str, dict[str, Any]] = Field(default_factory=dict)
    carried_failures: dict[str, ExpertResultItem] = Field(default_factory=dict)
    """Experts the research service refused for good in the source session: not asked again, failed as before."""
    carried_debate_outcome: dict[str, Any] | None = None
    token_budget: int | None = Field(default=None, ge=0)
    """Tokens the model calls of the stages it runs may use (None: no cap)."""


class ExpertFailure(BaseModel):
    """Why the research service refused an expert, as its problem detail said: the HTTP status, the
    problem ``code`` and, for ``insufficient_history``, the ``earliest_usable_date`` when it gave one."""

    model_config = ConfigDict(frozen=True)

    status: int
    code: str
    earliest_usable_date: date | None = None
    usage: LLMUsage | None = None
    """The model calls the expert made before it failed, as the problem detail reported them."""

    @property
    def permanent(self) -> bool:
        """Refused for good (404: unknown symbol, no data; 422: too little history): asking again cannot help. A
        spent token budget is not (a retry has a budget of its own)."""
        return self.status in PERMANENT_FAILURE_STATUSES and self.code != TOKEN_BUDGET_EXHAUSTED


class ExpertResultItem(BaseModel):
    expert_type: ExpertType
    status: Literal["success", "failed"]
    data: dict[str, Any] | None = None
    error: str | None = None
    failure: ExpertFailure | None = None
    """Set when the research service answered the failure with a problem detail (not for a timeout,
    an unreachable service or a broken contract)."""


class ResearchResult(BaseModel):
    symbol: str
    overall_status: OverallStatus
    analysis_date: date | None = None
    language: Language | None = None
    expert_results: list[ExpertResultItem]
    debate_outcome: dict[str, Any] | None = None
    verdict: dict[str, Any] | None = None
    session_id: str = ""
    """The stored session's id."""
    retry_count: int = 0
    usage: ResearchUsage | None = None


def overall_status_of(selected: list[str], succeeded: set[str]) -> OverallStatus:
    """completed: every selected expert succeeded; partial: some did; failed: none did."""
    done = [e for e in selected if e in succeeded]
    return "failed" if not done else "completed" if len(done) == len(selected) else "partial"
