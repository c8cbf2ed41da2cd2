"""Coordinator instances and the owner of each session (several coordinators on one database).

Revision ID: 0002_session_owners
Revises: 0001_research_sessions
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from coordinator.infrastructure.persistence.tables import UTCDateTime

revision: str = "0002_session_owners"
down_revision: str | None = "0001_research_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "coordinator_instances",
        sa.Column("instance_id", sa.String(36), nullable=False),
        sa.Column("hostname", sa.String(255), nullable=False),
        sa.Column("boot_id", sa.String(64), nullable=True),
        sa.Column("pid_namespace", sa.String(64), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("process_started", sa.BigInteger(), nullable=True),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("heartbeat_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("instance_id", name="pk_coordinator_instances"),
    )
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("owner", sa.String(36), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("owner")
    op.drop_table("coordinator_instances")
