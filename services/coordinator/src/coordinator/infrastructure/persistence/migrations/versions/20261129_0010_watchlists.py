"""The daily workflow: ``watchlists``, ``watchlist_schedules``, ``schedule_runs`` (one row per slot fired, its key
the exactly-once guard), ``notification_channels``, ``notification_deliveries`` (the outbox), and each batch's
``watchlist_id``, ``schedule_id`` and ``channels``.

Revision ID: 0010_watchlists
Revises: 0009_batches
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_watchlists"
down_revision: str | None = "0009_batches"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS = "kind IN ('webhook', 'slack', 'feishu', 'wecom', 'telegram', 'email')"
STATUSES = "status IN ('pending', 'delivered', 'failed')"


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("research_batches") as batch:
        batch.add_column(sa.Column("watchlist_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("schedule_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("channels", sa.JSON(), nullable=True))
    op.create_index("ix_research_batches_watchlist_id_created_at", "research_batches", ["watchlist_id", "created_at"])
    op.create_table(
        "watchlists",
        sa.Column("watchlist_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("symbols", sa.JSON(), nullable=False),
        _when("created_at"),
        _when("updated_at"),
        sa.PrimaryKeyConstraint("watchlist_id", name=op.f("pk_watchlists")),
        sa.UniqueConstraint("client_id", "name", name=op.f("uq_watchlists_client_id")),
    )
    op.create_table(
        "watchlist_schedules",
        sa.Column("schedule_id", sa.String(36), nullable=False),
        sa.Column("watchlist_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("cron", sa.String(200), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("trading_days_only", sa.Boolean(), nullable=False),
        sa.Column("calendar", sa.String(16), nullable=False),
        sa.Column("channels", sa.JSON(), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("schedule_id", name=op.f("pk_watchlist_schedules")),
    )
    op.create_index("ix_watchlist_schedules_watchlist_id", "watchlist_schedules", ["watchlist_id"])
    op.create_table(
        "schedule_runs",
        sa.Column("schedule_id", sa.String(36), nullable=False),
        _when("slot_at"),
        _when("fired_at"),
        sa.Column("batch_id", sa.String(36), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("schedule_id", "slot_at", name=op.f("pk_schedule_runs")),
    )
    op.create_table(
        "notification_channels",
        sa.Column("channel_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=True),
        sa.Column("name", sa.String(100), nullable=True),
        sa.Column("language", sa.String(2), nullable=False),
        _when("created_at"),
        sa.CheckConstraint(KINDS, name=op.f("ck_notification_channels_kind")),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_notification_channels")),
    )
    op.create_index("ix_notification_channels_client_id", "notification_channels", ["client_id"])
    op.create_table(
        "notification_deliveries",
        sa.Column("delivery_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("channel_id", sa.String(36), nullable=False),
        sa.Column("batch_id", sa.String(36), nullable=True),
        sa.Column("watchlist_id", sa.String(36), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        _when("next_attempt_at", nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("message", sa.JSON(), nullable=True),
        _when("created_at"),
        _when("updated_at"),
        _when("delivered_at", nullable=True),
        sa.CheckConstraint(STATUSES, name=op.f("ck_notification_deliveries_status")),
        sa.PrimaryKeyConstraint("delivery_id", name=op.f("pk_notification_deliveries")),
    )
    op.create_index(
        "ix_notification_deliveries_status_next_attempt_at",
        "notification_deliveries",
        ["status", "next_attempt_at"],
    )
    op.create_index(
        "ix_notification_deliveries_client_id_created_at", "notification_deliveries", ["client_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_table("notification_deliveries")
    op.drop_table("notification_channels")
    op.drop_table("schedule_runs")
    op.drop_table("watchlist_schedules")
    op.drop_table("watchlists")
    op.drop_index("ix_research_batches_watchlist_id_created_at", table_name="research_batches")
    with op.batch_alter_table("research_batches") as batch:
        batch.drop_column("channels")
        batch.drop_column("schedule_id")
        batch.drop_column("watchlist_id")
