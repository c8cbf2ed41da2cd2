"""Research sessions and their expert outcomes.

Revision ID: 0001_research_sessions
Revises:
Create Date: 2026-11-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from coordinator.infrastructure.persistence.tables import UTCDateTime

revision: str = "0001_research_sessions"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SESSION = "status IN ('running', 'completed', 'partial', 'failed', 'interrupted')"
_STAGE = "{} IN ('success', 'failed', 'skipped', 'pending')"


def upgrade() -> None:
    op.create_table(
        "research_sessions",
        sa.Column("session_id", sa.String(36), nullable=False),
        sa.Column("symbol", sa.String(32), nullable=False),
        sa.Column("experts", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("skip_debate", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("retry_count", sa.Integer(), nullable=False),
        sa.Column("retried_from", sa.String(36), nullable=True),
        sa.Column("request_id", sa.String(128), nullable=True),
        sa.Column("debate_status", sa.String(16), nullable=False),
        sa.Column("debate_error", sa.Text(), nullable=True),
        sa.Column("debate_duration_ms", sa.Float(), nullable=True),
        sa.Column("debate_outcome", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("judge_status", sa.String(16), nullable=False),
        sa.Column("judge_error", sa.Text(), nullable=True),
        sa.Column("judge_duration_ms", sa.Float(), nullable=True),
        sa.Column("verdict", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("completed_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("session_id", name="pk_research_sessions"),
        sa.ForeignKeyConstraint(
            ["retried_from"],
            ["research_sessions.session_id"],
            name="fk_research_sessions_retried_from_research_sessions",
            ondelete="RESTRICT",
        ),
        sa.UniqueConstraint("retried_from", name="uq_research_sessions_retried_from"),
        sa.CheckConstraint(_SESSION, name=op.f("ck_research_sessions_status")),
        sa.CheckConstraint(_STAGE.format("debate_status"), name=op.f("ck_research_sessions_debate_status")),
        sa.CheckConstraint(_STAGE.format("judge_status"), name=op.f("ck_research_sessions_judge_status")),
        sa.CheckConstraint("retry_count >= 0", name=op.f("ck_research_sessions_retry_count")),
    )
    op.create_index("ix_research_sessions_created_at", "research_sessions", ["created_at"])
    op.create_index("ix_research_sessions_symbol_created_at", "research_sessions", ["symbol", "created_at"])
    op.create_index("ix_research_sessions_status_created_at", "research_sessions", ["status", "created_at"])

    op.create_table(
        "research_session_experts",
        sa.Column("session_id", sa.String(36), nullable=False),
        sa.Column("expert", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("data", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("recorded_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "expert", name="pk_research_session_experts"),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["research_sessions.session_id"],
            name="fk_research_session_experts_session_id_research_sessions",
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("status IN ('success', 'failed')", name=op.f("ck_research_session_experts_status")),
        sa.CheckConstraint("attempts >= 0", name=op.f("ck_research_session_experts_attempts")),
    )


def downgrade() -> None:
    op.drop_table("research_session_experts")
    op.drop_index("ix_research_sessions_status_created_at", table_name="research_sessions")
    op.drop_index("ix_research_sessions_symbol_created_at", table_name="research_sessions")
    op.drop_index("ix_research_sessions_created_at", table_name="research_sessions")
    op.drop_table("research_sessions")
