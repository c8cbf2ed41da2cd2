"""Research sessions as durable jobs: the ``queued`` and ``cancelled`` statuses, what a job claim and a resume
need (``resumable``, ``started_at``, ``resume_count``, ``status_reason``), the idempotency key, and each session's
append-only events (``research_session_events``, numbered per session by ``last_event_seq``).

Revision ID: 0005_session_jobs
Revises: 0004_session_clients
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from coordinator.infrastructure.persistence.tables import UTCDateTime

revision: str = "0005_session_jobs"
down_revision: str | None = "0004_session_clients"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = "status IN ('running', 'completed', 'partial', 'failed', 'interrupted')"
_NEW = "status IN ('queued', 'running', 'completed', 'partial', 'failed', 'cancelled', 'interrupted')"


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_constraint(op.f("ck_research_sessions_status"), type_="check")
        batch.create_check_constraint(op.f("ck_research_sessions_status"), _NEW)
        batch.add_column(sa.Column("resumable", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("started_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("resume_count", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("status_reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("idempotency_key", sa.String(200), nullable=True))
        batch.add_column(sa.Column("request_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("last_event_seq", sa.Integer(), nullable=False, server_default="0"))
        batch.create_check_constraint(op.f("ck_research_sessions_resume_count"), "resume_count >= 0")
        batch.create_index("ix_research_sessions_client_id_idempotency_key", ["client_id", "idempotency_key"])
    op.create_table(
        "research_session_events",
        sa.Column("session_id", sa.String(36), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["research_sessions.session_id"],
            name="fk_research_session_events_session_id_research_sessions",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "seq", name="pk_research_session_events"),
    )


def downgrade() -> None:
    op.drop_table("research_session_events")
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_index("ix_research_sessions_client_id_idempotency_key")
        batch.drop_constraint(op.f("ck_research_sessions_resume_count"), type_="check")
        for column in ("last_event_seq", "request_hash", "idempotency_key", "status_reason", "resume_count"):
            batch.drop_column(column)
        batch.drop_column("started_at")
        batch.drop_column("resumable")
        batch.drop_constraint(op.f("ck_research_sessions_status"), type_="check")
        batch.create_check_constraint(op.f("ck_research_sessions_status"), _OLD)
