"""The language of a research session (zh or en): what its experts, debate and verdict are written in, and what a
retry of it writes in again. NULL on rows written before it was recorded.

Revision ID: 0011_session_language
Revises: 0010_watchlists
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_session_language"
down_revision: str | None = "0010_watchlists"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("language", sa.String(2), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("language")
