"""Batches: ``research_batches`` (one row per batch of researches as of one day) and each session's ``batch_id`` and
``batch_position`` (the batch it is an item of, and its place in the batch's list).

Revision ID: 0009_batches
Revises: 0008_llm_usage
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_batches"
down_revision: str | None = "0008_llm_usage"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = "status IN ('queued', 'running', 'completed', 'partial', 'failed', 'cancelled')"


def upgrade() -> None:
    op.create_table(
        "research_batches",
        sa.Column("batch_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("requested_by", sa.String(64), nullable=True),
        sa.Column("analysis_date", sa.String(10), nullable=False),
        sa.Column("experts", sa.JSON(), nullable=False),
        sa.Column("token_budget", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("request_id", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(STATUSES, name=op.f("ck_research_batches_status")),
        sa.PrimaryKeyConstraint("batch_id", name=op.f("pk_research_batches")),
    )
    op.create_index("ix_research_batches_client_id_created_at", "research_batches", ["client_id", "created_at"])
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("batch_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("batch_position", sa.Integer(), nullable=True))
    op.create_index("ix_research_sessions_batch_id_batch_position", "research_sessions", ["batch_id", "batch_position"])


def downgrade() -> None:
    op.drop_index("ix_research_sessions_batch_id_batch_position", table_name="research_sessions")
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("batch_position")
        batch.drop_column("batch_id")
    op.drop_index("ix_research_batches_client_id_created_at", table_name="research_batches")
    op.drop_table("research_batches")
