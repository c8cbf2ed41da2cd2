"""A research session: what was asked, what each stage produced, and how it ended (history and audit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Literal

from coordinator.domain.dtos.research_dtos import ExpertFailure
from shared_contracts.language import LANGUAGES, Language

LOCAL_CLIENT_ID = "local"
"""The client of every session stored with ``AUTH_MODE=none`` (and of the rows stored before clients were)."""

IDEMPOTENCY_HOURS = 24
"""How long an ``Idempotency-Key`` names the session it made (per client)."""

SessionStatus = Literal["queued", "running", "completed", "partial", "failed", "cancelled", "interrupted"]
FINAL_STATUSES: frozenset[str] = frozenset({"completed", "partial", "failed", "cancelled", "interrupted"})
StageStatus = Literal["success", "failed", "skipped", "pending"]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ExpertOutcome:
    status: Literal["success", "failed"]
    data: dict[str, Any] | None = None
    error: str | None = None
    duration_ms: float | None = None
    attempts: int = 1
    failure: ExpertFailure | None = None
    """What the research service said of a refused expert (its problem's status and code)."""

    @property
    def retryable(self) -> bool:
        """Failed, and asking again may succeed (not refused for good: ``ExpertFailure.permanent``)."""
        return self.status != "success" and not (self.failure is not None and self.failure.permanent)


@dataclass(frozen=True)
class StageOutcome:
    """The debate's or the judge's outcome; ``data``: the debate outcome or the verdict, when it succeeded;
    ``usage``: when it failed, the model calls it had made (the peer's problem detail's ``usage``)."""

    status: StageStatus = "pending"
    error: str | None = None
    duration_ms: float | None = None
    data: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None


@dataclass
class ResearchSession:
    session_id: str
    symbol: str
    experts: list[str]
    options: dict[str, dict[str, Any]]
    skip_debate: bool
    analysis_date: date | None = None
    """The day the research was made as of; None on sessions stored before it was recorded that had no
    technical analyst (whose ``options`` held the only date then)."""
    status: SessionStatus = "running"
    language: str | None = None
    """The language its experts, debate and verdict are written in (zh or en; None on sessions stored before it
    was recorded: the services' REPORT_LANGUAGE then)."""
    retry_count: int = 0
    retried_from: str | None = None
    retried_by: str | None = None
    """The session that retried this one (the store fills it when reading); a session is retried once."""
    request_id: str | None = None
    client_id: str = LOCAL_CLIENT_ID
    """The client that asked for the research (its API key's client id); only it (and ``admin``) sees it."""
    requested_by: str | None = None
    """The client whose key started it: ``client_id``, or the admin who retried another client's session
    (None on sessions stored before it was recorded)."""
    expert_outcomes: dict[str, ExpertOutcome] = field(default_factory=dict)
    debate: StageOutcome = field(default_factory=StageOutcome)
    judge: StageOutcome = field(default_factory=StageOutcome)
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    completed_at: datetime | None = None
    resumable: bool = False
    """Run with a checkpointer: when its coordinator is gone it is queued again and resumed, not interrupted."""
    started_at: datetime | None = None
    """When a coordinator first took it from the queue (None: not run yet)."""
    resume_count: int = 0
    status_reason: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    last_event_seq: int = 0
    token_budget: int | None = None
    """Tokens the model calls of this session may use (the lower of RESEARCH_TOKEN_BUDGET and the request's)."""
    carried_stages: list[str] = field(default_factory=list)
    """The stages a retry carried from its source (each expert by name, ``debate``): their calls were made there."""
    batch_id: str | None = None
    """The batch it is an item of (None: asked for alone)."""
    batch_position: int | None = None
    """Its place in its batch's list of symbols, from 0."""

    @property
    def written_in(self) -> Language | None:
        """``language`` as a research names it (None when it was not recorded, or is not a known language)."""
        return next((known for known in LANGUAGES if known == self.language), None)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def debate_outcome(self) -> dict[str, Any] | None:
        return self.debate.data

    @property
    def verdict(self) -> dict[str, Any] | None:
        return self.judge.data

    @property
    def action(self) -> str | None:
        """The verdict's action (BUY, SELL, HOLD); None without a verdict."""
        action = (self.verdict or {}).get("action")
        return action if isinstance(action, str) else None

    @property
    def failed_experts(self) -> list[str]:
        return [e for e in self.experts if (o := self.expert_outcomes.get(e)) is None or o.status != "success"]

    @property
    def debate_succeeded(self) -> bool:
        return not self.skip_debate and self.debate.status == "success" and self.debate_outcome is not None

    @property
    def verdict_succeeded(self) -> bool:
        return self.judge.status == "success" and self.verdict is not None

    @property
    def stages_to_retry(self) -> list[str]:
        """What a retry of this session would re-run; empty when nothing can be, or when it has been retried
        already (``retried_by``: retry that one)."""
        return [] if self.retried_by is not None else self.retryable_stages

    @property
    def retryable_experts(self) -> list[str]:
        """The experts that did not succeed and may if asked again (``ExpertOutcome.retryable``)."""
        return [e for e in self.experts if (o := self.expert_outcomes.get(e)) is None or o.retryable]

    @property
    def permanent_failures(self) -> dict[str, ExpertOutcome]:
        """The experts the research service refused for good: a retry carries them as they are."""
        return {e: o for e, o in self.expert_outcomes.items() if o.status != "success" and not o.retryable}

    @property
    def retryable_stages(self) -> list[str]:
        """The retryable experts, then ``debate`` and ``judge`` unless they succeeded (or the session skips them;
        not without an expert that succeeded or may). Empty: nothing a retry can change."""
        stages = self.retryable_experts
        if self.skip_debate or stages:
            return stages if self.skip_debate else [*stages, "debate", "judge"]
        if not self.successful_results:
            return []
        if not self.debate_succeeded:
            return ["debate", "judge"]
        return [] if self.verdict_succeeded else ["judge"]

    @property
    def successful_results(self) -> dict[str, dict[str, Any]]:
        return {e: o.data for e, o in self.expert_outcomes.items() if o.status == "success" and o.data is not None}
