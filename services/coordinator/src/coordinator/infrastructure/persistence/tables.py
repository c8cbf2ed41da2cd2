"""The sessions schema (SQLAlchemy 2 declarative), one definition for SQLite and PostgreSQL.

``research_sessions`` holds the request, the debate and judge stages, the overall status and the
coordinator instance running it (``owner``); ``research_session_events`` holds each session's events (append-only,
numbered per session); ``research_session_experts`` holds one row per expert, so
that experts finishing in parallel each commit their own row (no read-modify-write of a shared JSON
document); ``coordinator_instances`` holds one row per live coordinator process, renewed while it runs
(the lease behind ``owner``). JSON columns use
``sqlalchemy.JSON`` (JSON on PostgreSQL, TEXT on SQLite). The Alembic revisions in ``migrations/``
create exactly this schema; a test compares the two.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import false as sa_false
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.schema import CheckConstraint, ForeignKey, Index, MetaData, UniqueConstraint
from sqlalchemy.types import JSON, BigInteger, Boolean, DateTime, Float, Integer, String, Text, TypeDecorator

from coordinator.domain.model.channel import CHANNEL_KINDS
from coordinator.domain.model.delivery import DELIVERY_STATUSES

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SESSION_STATUSES = ("queued", "running", "completed", "partial", "failed", "cancelled", "interrupted")
STAGE_STATUSES = ("success", "failed", "skipped", "pending")
EXPERT_STATUSES = ("success", "failed")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores naive text; we re-attach UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


JSONDocument = JSON(none_as_null=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class SessionRow(Base):
    __tablename__ = "research_sessions"
    __table_args__ = (
        # A session is retried at most once: two concurrent retries of one session cannot both start,
        # whichever coordinator replica serves them. (NULLs are distinct on SQLite and PostgreSQL.)
        UniqueConstraint("retried_from"),
        CheckConstraint(_in("status", SESSION_STATUSES), name="status"),
        CheckConstraint(_in("debate_status", STAGE_STATUSES), name="debate_status"),
        CheckConstraint(_in("judge_status", STAGE_STATUSES), name="judge_status"),
        CheckConstraint("retry_count >= 0", name="retry_count"),
        Index("ix_research_sessions_created_at", "created_at"),
        Index("ix_research_sessions_symbol_created_at", "symbol", "created_at"),
        Index("ix_research_sessions_status_created_at", "status", "created_at"),
        Index("ix_research_sessions_client_id_created_at", "client_id", "created_at"),
        # One session per client and key: two racing submissions with one key cannot both run.
        Index("ix_research_sessions_client_id_idempotency_key", "client_id", "idempotency_key", unique=True),
        CheckConstraint("resume_count >= 0", name="resume_count"),
        Index("ix_research_sessions_batch_id_batch_position", "batch_id", "batch_position"),
    )

    session_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    symbol: Mapped[str] = mapped_column(String(32))
    experts: Mapped[list[str]] = mapped_column(JSON)
    options: Mapped[dict[str, dict[str, Any]]] = mapped_column(JSON)
    skip_debate: Mapped[bool] = mapped_column(Boolean)
    analysis_date: Mapped[str | None] = mapped_column(String(10), nullable=True)
    """ISO day the research is made as of; NULL on rows written before it was recorded that had no
    technical analyst (migration 0003 copied the others' from their ``analysis_date`` option)."""
    status: Mapped[str] = mapped_column(String(16))
    retry_count: Mapped[int] = mapped_column(Integer, default=0)
    retried_from: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("research_sessions.session_id", ondelete="RESTRICT"), nullable=True
    )
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    client_id: Mapped[str] = mapped_column(String(64), server_default="local")
    requested_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The client that asked (migration 0004 gave earlier rows ``local``, the client of ``AUTH_MODE=none``)."""
    debate_status: Mapped[str] = mapped_column(String(16))
    debate_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    debate_duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    debate_outcome: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    judge_status: Mapped[str] = mapped_column(String(16))
    judge_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    judge_duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    verdict: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    owner: Mapped[str | None] = mapped_column(String(36), nullable=True)
    """The coordinator instance running the session (``coordinator_instances``); NULL on rows written
    before instances were recorded, and while the session is queued."""
    resumable: Mapped[bool] = mapped_column(Boolean, server_default=sa_false())
    """Run with a checkpointer: when its coordinator is gone it is queued again and resumed, not interrupted."""
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When a coordinator first took it from the queue (NULL: never run yet)."""
    resume_count: Mapped[int] = mapped_column(Integer, server_default="0")
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Why it ended as it did, when that needs saying (e.g. why it could not be resumed)."""
    idempotency_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    request_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """SHA-256 of the request that created it with ``idempotency_key``."""
    last_event_seq: Mapped[int] = mapped_column(Integer, server_default="0")
    """The sequence number of its last event (``research_session_events``)."""
    token_budget: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Tokens its model calls may use (NULL: no cap)."""
    language: Mapped[str | None] = mapped_column(String(2), nullable=True)
    """The language its texts are written in, zh or en (NULL on rows written before it was recorded)."""
    carried_stages: Mapped[list[str] | None] = mapped_column(JSONDocument, nullable=True)
    """The stages a retry carried from its source (NULL on rows written before it was recorded: none)."""
    debate_usage: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    """The model calls a failed debate had made (its problem detail's ``usage``)."""
    judge_usage: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    """The model calls a failed verdict had made."""
    batch_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    """The batch it is an item of (``research_batches``); NULL for a research asked for alone."""
    batch_position: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Its place in the batch's list of symbols, from 0."""

    expert_rows: Mapped[list[ExpertRow]] = relationship(
        back_populates="session", cascade="all, delete-orphan", lazy="raise", passive_deletes=True
    )


class ExpertRow(Base):
    __tablename__ = "research_session_experts"
    __table_args__ = (
        CheckConstraint(_in("status", EXPERT_STATUSES), name="status"),
        CheckConstraint("attempts >= 0", name="attempts"),
    )

    session_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("research_sessions.session_id", ondelete="CASCADE"), primary_key=True
    )
    expert: Mapped[str] = mapped_column(String(64), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    failure: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, nullable=True)
    """A refused expert's ``ExpertFailure`` (status, code, earliest usable date), as the research service said."""
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)

    session: Mapped[SessionRow] = relationship(back_populates="expert_rows", lazy="raise")


class EventRow(Base):
    """What happened to a session, append-only, numbered per session from 1 (the SSE event id)."""

    __tablename__ = "research_session_events"

    session_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("research_sessions.session_id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


BATCH_STATUSES = ("queued", "running", "completed", "partial", "failed", "cancelled")


class BatchRow(Base):
    """A batch of researches as of one day; its items are the sessions whose ``batch_id`` names it."""

    __tablename__ = "research_batches"
    __table_args__ = (
        CheckConstraint(_in("status", BATCH_STATUSES), name="status"),
        Index("ix_research_batches_client_id_created_at", "client_id", "created_at"),
        Index("ix_research_batches_watchlist_id_created_at", "watchlist_id", "created_at"),
    )

    batch_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    requested_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    analysis_date: Mapped[str] = mapped_column(String(10))
    experts: Mapped[list[str]] = mapped_column(JSON)
    token_budget: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    total: Mapped[int] = mapped_column(Integer)
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    watchlist_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    """The watchlist this batch researched (a run of it), when it is one."""
    schedule_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    """The schedule whose slot started it, when one did."""
    channels: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """The channels told when it ends (an outbox delivery each, written in the transaction that ends it)."""


class WatchlistRow(Base):
    """A client's named list of symbols (names unique per client)."""

    __tablename__ = "watchlists"
    __table_args__ = (UniqueConstraint("client_id", "name"),)

    watchlist_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(100))
    symbols: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScheduleRow(Base):
    """When a watchlist is researched again (a cron in a time zone, trading days only or not)."""

    __tablename__ = "watchlist_schedules"
    __table_args__ = (Index("ix_watchlist_schedules_watchlist_id", "watchlist_id"),)

    schedule_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    watchlist_id: Mapped[str] = mapped_column(String(36))
    client_id: Mapped[str] = mapped_column(String(64))
    cron: Mapped[str] = mapped_column(String(200))
    timezone: Mapped[str] = mapped_column(String(64))
    trading_days_only: Mapped[bool] = mapped_column(Boolean)
    calendar: Mapped[str] = mapped_column(String(16))
    channels: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScheduleRunRow(Base):
    """A slot a schedule fired: its primary key (schedule, slot) is what makes each slot fire once across
    coordinators."""

    __tablename__ = "schedule_runs"

    schedule_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    slot_at: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    fired_at: Mapped[datetime] = mapped_column(UTCDateTime)
    batch_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class ChannelRow(Base):
    """Where a client's notifications go; ``secret`` is never answered."""

    __tablename__ = "notification_channels"
    __table_args__ = (
        CheckConstraint(_in("kind", CHANNEL_KINDS), name="kind"),
        Index("ix_notification_channels_client_id", "client_id"),
    )

    channel_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    target: Mapped[str] = mapped_column(Text)
    secret: Mapped[str | None] = mapped_column(Text, nullable=True)
    name: Mapped[str | None] = mapped_column(String(100), nullable=True)
    language: Mapped[str] = mapped_column(String(2))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DeliveryRow(Base):
    """The outbox: one notification to one channel, until the channel acknowledges it or the attempts run out."""

    __tablename__ = "notification_deliveries"
    __table_args__ = (
        CheckConstraint(_in("status", DELIVERY_STATUSES), name="status"),
        Index("ix_notification_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
        Index("ix_notification_deliveries_client_id_created_at", "client_id", "created_at"),
    )

    delivery_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[str] = mapped_column(String(36))
    batch_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    watchlist_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    message: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class UsageRecordRow(Base):
    """What one stage of one session spent on model calls, written when the session ends (the calls it made
    itself: a retry's carried stages are not written again). Not tied to the session row, so the usage history
    outlives the sessions' retention."""

    __tablename__ = "llm_usage_records"
    __table_args__ = (Index("ix_llm_usage_records_client_id_day", "client_id", "day"),)

    session_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    stage: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64))
    day: Mapped[str] = mapped_column(String(10))
    """The UTC day the session ended (ISO)."""
    model: Mapped[str] = mapped_column(String(200))
    llm_calls: Mapped[int] = mapped_column(Integer)
    input_tokens: Mapped[int] = mapped_column(BigInteger)
    output_tokens: Mapped[int] = mapped_column(BigInteger)
    estimated: Mapped[bool] = mapped_column(Boolean)


class CoordinatorInstanceRow(Base):
    """A running coordinator process. ``heartbeat_at`` is renewed while it lives; ``boot_id``,
    ``pid_namespace``, ``pid`` and ``process_started`` let a process in the same PID namespace tell at
    once whether it is still running; ``hostname`` is for people."""

    __tablename__ = "coordinator_instances"

    instance_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    hostname: Mapped[str] = mapped_column(String(255))
    boot_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    pid_namespace: Mapped[str | None] = mapped_column(String(64), nullable=True)
    pid: Mapped[int] = mapped_column(Integer)
    process_started: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime)
