"""The client of each session (private sessions): the client id of the API key that asked for it.

Rows stored before take ``local``, the client of ``AUTH_MODE=none``: with API keys on, only an ``admin``
key sees them.

Revision ID: 0004_session_clients
Revises: 0003_session_analysis_date
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_session_clients"
down_revision: str | None = "0003_session_analysis_date"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("client_id", sa.String(64), nullable=False, server_default="local"))
        batch.create_index("ix_research_sessions_client_id_created_at", ["client_id", "created_at"])


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_index("ix_research_sessions_client_id_created_at")
        batch.drop_column("client_id")
