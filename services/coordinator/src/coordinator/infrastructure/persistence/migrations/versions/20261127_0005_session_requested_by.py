"""Who asked for each session (``requested_by``): the client of the key that started or retried it. It differs
from ``client_id`` (the owner) when an ``admin`` key retries another client's session. Rows stored before: null.

Revision ID: 0005_session_requested_by
Revises: 0004_session_clients
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_session_requested_by"
down_revision: str | None = "0004_session_clients"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("requested_by", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("requested_by")
