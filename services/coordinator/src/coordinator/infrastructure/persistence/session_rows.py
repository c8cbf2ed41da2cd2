"""How a research session is stored: the tables' handles, and a session, an expert's outcome and a stage mapped to
their rows and back (the same mapping for every module that reads or writes sessions)."""

from __future__ import annotations

import functools
from datetime import date
from typing import Any

from sqlalchemy import Select, Table
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, selectinload
from sqlalchemy.sql.expression import select

from coordinator.domain.dtos.research_dtos import ExpertFailure
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, StageOutcome, utcnow
from coordinator.infrastructure.persistence.tables import EventRow, ExpertRow, SessionRow
from shared_contracts.experts import is_iso_date

SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table
EXPERTS: Table = ExpertRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
UNFINISHED = ("queued", "running")

SESSION_FIELDS: tuple[str, ...] = ("session_id", "symbol", "skip_debate", "status", "retry_count", "retried_from")
SESSION_FIELDS += (
    "request_id",
    "client_id",
    "requested_by",
    "created_at",
    "updated_at",
    "completed_at",
    "resumable",
    "started_at",
)
SESSION_FIELDS += ("resume_count", "status_reason", "idempotency_key", "request_hash", "token_budget")
SESSION_FIELDS += ("batch_id", "batch_position", "language")
"""What is stored as it is, in the column of its name (experts' and stages' columns apart)."""
EXPERT_FIELDS = ("status", "data", "error", "duration_ms", "attempts")


@functools.cache
def sessions_with_experts() -> Select[SessionRow, str]:
    """Sessions with their expert rows and the id of the session that retried each (at most one: the
    ``retried_from`` column is unique)."""
    retry = aliased(SessionRow)
    return (
        select(SessionRow, retry.session_id)
        .outerjoin(retry, retry.retried_from == SessionRow.session_id)
        .options(selectinload(SessionRow.expert_rows))
    )


async def load_session(db: AsyncSession, session_id: str, client_id: str | None = None) -> ResearchSession | None:
    """The session, or None; with ``client_id``, only that client's (the owner compared in the query: another's
    session reads no row, as an unknown id does, and its expert rows are not loaded)."""
    owned = [] if client_id is None else [SessionRow.client_id == client_id]
    found = (await db.execute(sessions_with_experts().where(SessionRow.session_id == session_id, *owned))).first()
    if found is None:
        return None
    row, retried_by = found
    return to_domain(row, retried_by)


def expert_upsert(dialect: str) -> Any:
    """INSERT of an expert's row that replaces a row already recorded for that expert (both backends
    speak ``ON CONFLICT``)."""
    insert_for = sqlite_insert if dialect == "sqlite" else postgresql_insert
    statement = insert_for(EXPERTS)
    replaced = {c.name: statement.excluded[c.name] for c in EXPERTS.columns if not c.primary_key}
    return statement.on_conflict_do_update(index_elements=[EXPERTS.c.session_id, EXPERTS.c.expert], set_=replaced)


def expert_values(session_id: str, expert: str, outcome: ExpertOutcome) -> dict[str, Any]:
    fields = {name: getattr(outcome, name) for name in EXPERT_FIELDS}
    failure = outcome.failure.model_dump(mode="json") if outcome.failure is not None else None
    return {"session_id": session_id, "expert": expert, **fields, "failure": failure, "recorded_at": utcnow()}


def expert_outcome(row: ExpertRow) -> ExpertOutcome:
    failure = ExpertFailure.model_validate(row.failure) if row.failure else None
    return ExpertOutcome(**{name: getattr(row, name) for name in EXPERT_FIELDS}, failure=failure)


def session_values(session: ResearchSession) -> dict[str, Any]:
    return {
        **{name: getattr(session, name) for name in SESSION_FIELDS},
        "experts": list(session.experts),
        "options": {k: dict(v) for k, v in session.options.items()},
        "analysis_date": session.analysis_date.isoformat() if session.analysis_date is not None else None,
        "carried_stages": list(session.carried_stages) or None,
        **stage_values("debate", "debate_outcome", session.debate),
        **stage_values("judge", "verdict", session.judge),
    }


def stage_values(stage: str, data_column: str, outcome: StageOutcome) -> dict[str, Any]:
    return {
        f"{stage}_status": outcome.status,
        f"{stage}_error": outcome.error,
        f"{stage}_duration_ms": outcome.duration_ms,
        data_column: outcome.data,
        f"{stage}_usage": outcome.usage,
    }


def stored_day(text: str | None) -> date | None:
    """The stored ISO day; anything else (not written by this code) reads as no date."""
    return date.fromisoformat(text) if text is not None and is_iso_date(text) else None


def to_domain(row: SessionRow, retried_by: str | None = None) -> ResearchSession:
    """Statuses are read as stored: CHECK constraints guard them."""
    by_expert = {r.expert: r for r in row.expert_rows}
    ordered = [e for e in row.experts if e in by_expert] + [e for e in by_expert if e not in row.experts]
    return ResearchSession(
        **{name: getattr(row, name) for name in SESSION_FIELDS},
        experts=list(row.experts),
        options=dict(row.options),
        analysis_date=stored_day(row.analysis_date),
        retried_by=retried_by,
        last_event_seq=row.last_event_seq,
        carried_stages=list(row.carried_stages or []),
        expert_outcomes={e: expert_outcome(by_expert[e]) for e in ordered},
        debate=StageOutcome(
            row.debate_status,  # type: ignore[arg-type]
            row.debate_error,
            row.debate_duration_ms,
            row.debate_outcome,
            row.debate_usage,
        ),
        judge=StageOutcome(row.judge_status, row.judge_error, row.judge_duration_ms, row.verdict, row.judge_usage),  # type: ignore[arg-type]
    )
