"""LLM usage and token budgets: each session's ``token_budget``, the stages a retry ``carried_stages``, what a
failed debate or verdict had used (``debate_usage``, ``judge_usage``), and the usage ledger (``llm_usage_records``:
one row per stage of a session that made model calls, by client, day and model).

Revision ID: 0008_llm_usage
Revises: 0007_idempotency_and_failures
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_llm_usage"
down_revision: str | None = "0007_idempotency_and_failures"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("token_budget", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("carried_stages", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("debate_usage", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("judge_usage", sa.JSON(), nullable=True))
    op.create_table(
        "llm_usage_records",
        sa.Column("session_id", sa.String(36), nullable=False),
        sa.Column("stage", sa.String(64), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), nullable=False),
        sa.Column("estimated", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "stage", name="pk_llm_usage_records"),
    )
    op.create_index("ix_llm_usage_records_client_id_day", "llm_usage_records", ["client_id", "day"])


def downgrade() -> None:
    op.drop_index("ix_llm_usage_records_client_id_day", table_name="llm_usage_records")
    op.drop_table("llm_usage_records")
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("judge_usage")
        batch.drop_column("debate_usage")
        batch.drop_column("carried_stages")
        batch.drop_column("token_budget")
