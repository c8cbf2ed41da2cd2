"""One session per client and ``Idempotency-Key`` (a unique index, so two racing submissions cannot both run), and
each failed expert's refusal as the research service stated it (``failure``: status, code, earliest usable date).

Keys held twice before (a race the index now refuses) stay on the newest session only. The failures stored before
are read out of their error text, which names the refusal (``research 404 data_unavailable: …``).

Revision ID: 0007_idempotency_and_failures
Revises: 0006_session_jobs
Create Date: 2026-11-27
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_idempotency_and_failures"
down_revision: str | None = "0006_session_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEX = "ix_research_sessions_client_id_idempotency_key"
_KEEP_NEWEST = """
UPDATE research_sessions SET idempotency_key = NULL
WHERE idempotency_key IS NOT NULL AND EXISTS (
    SELECT 1 FROM research_sessions AS newer
    WHERE newer.client_id = research_sessions.client_id
      AND newer.idempotency_key = research_sessions.idempotency_key
      AND (newer.created_at > research_sessions.created_at
           OR (newer.created_at = research_sessions.created_at AND newer.session_id > research_sessions.session_id))
)
"""


_REFUSAL = re.compile(r"^research (?P<status>4\d\d) (?P<code>[a-z_]+):")


def upgrade() -> None:
    op.execute(_KEEP_NEWEST)
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_index(_INDEX)
        batch.create_index(_INDEX, ["client_id", "idempotency_key"], unique=True)
    with op.batch_alter_table("research_session_experts") as batch:
        batch.add_column(sa.Column("failure", sa.JSON(none_as_null=True), nullable=True))
    experts = sa.table(
        "research_session_experts",
        sa.column("session_id", sa.String()),
        sa.column("expert", sa.String()),
        sa.column("error", sa.Text()),
        sa.column("failure", sa.JSON(none_as_null=True)),
    )
    conn = op.get_bind()
    refused = conn.execute(
        sa.select(experts.c.session_id, experts.c.expert, experts.c.error).where(experts.c.error.like("research 4%"))
    )
    for session_id, expert, error in list(refused):
        if (found := _REFUSAL.match(error or "")) is not None:
            failure = {"status": int(found["status"]), "code": found["code"], "earliest_usable_date": None}
            mine = (experts.c.session_id == session_id) & (experts.c.expert == expert)
            conn.execute(sa.update(experts).where(mine).values(failure=failure))


def downgrade() -> None:
    with op.batch_alter_table("research_session_experts") as batch:
        batch.drop_column("failure")
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_index(_INDEX)
        batch.create_index(_INDEX, ["client_id", "idempotency_key"])
