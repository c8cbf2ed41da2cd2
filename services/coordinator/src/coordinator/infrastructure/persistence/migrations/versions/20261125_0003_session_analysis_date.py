"""The analysis date of each session: one day per research.

Rows stored before take their technical analyst's ``analysis_date`` option (what that research was dated
by; the coordinator stored it as ``YYYY-MM-DD``); those without one keep NULL.

Revision ID: 0003_session_analysis_date
Revises: 0002_session_owners
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_session_analysis_date"
down_revision: str | None = "0002_session_owners"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# One statement per backend (also for ``alembic upgrade --sql``); a value that is not 10 characters of
# text is no date the coordinator stored, and is left out.
_BACKFILL = {
    "sqlite": """
        UPDATE research_sessions
        SET analysis_date = json_extract(options, '$.technical_analyst.analysis_date')
        WHERE json_type(options, '$.technical_analyst.analysis_date') = 'text'
          AND length(json_extract(options, '$.technical_analyst.analysis_date')) = 10
    """,
    "postgresql": """
        UPDATE research_sessions
        SET analysis_date = options -> 'technical_analyst' ->> 'analysis_date'
        WHERE json_typeof(options -> 'technical_analyst' -> 'analysis_date') = 'string'
          AND length(options -> 'technical_analyst' ->> 'analysis_date') = 10
    """,
}


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("analysis_date", sa.String(10), nullable=True))
    op.execute(sa.text(_BACKFILL[op.get_context().dialect.name]))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("analysis_date")
