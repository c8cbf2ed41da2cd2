"""``IBatchStore`` on the sessions database: ``research_batches`` and the sessions that are its items.

A chunk's claim and its end are one transaction each, whatever their size: the claim takes the items with
``FOR UPDATE SKIP LOCKED`` on PostgreSQL (SQLite orders its writers), the end locks the batch's row first, so two
coordinators ending the last chunks of one batch see each other's items and exactly one of them ends the batch.
Items are claimed ``resumable``: a coordinator that dies leaves them ``running`` under its instance, and the lease
(``instances``) queues them again, to be claimed by a live coordinator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import bindparam, case, func, insert, select, update

from coordinator.domain.exceptions import BatchNotFoundError
from coordinator.domain.model.batch import Batch, BatchItem, BatchProgress, BatchStatus, batch_status_of
from coordinator.domain.model.events import terminal_event
from coordinator.domain.model.session import ResearchSession, utcnow
from coordinator.domain.ports.batch_store import Chunk, EndedItem, IBatchStore
from coordinator.infrastructure.persistence.delivery_store import queue_deliveries
from coordinator.infrastructure.persistence.event_notifications import notify_events
from coordinator.infrastructure.persistence.session_repository import SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.session_rows import (
    EVENTS,
    EXPERTS,
    SESSIONS,
    UNFINISHED,
    expert_values,
    session_values,
    sessions_with_experts,
    stage_values,
    to_domain,
)
from coordinator.infrastructure.persistence.tables import BatchRow, SessionRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore

BATCHES: Table = BatchRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table
FAILED_ITEM = ("failed", "interrupted")
"""Item statuses counted as failed in a batch's progress."""


class SqlAlchemyBatchStore(SqlAlchemyStore, IBatchStore):
    @classmethod
    def sharing(cls, sessions: SqlAlchemySessionRepository) -> SqlAlchemyBatchStore:
        """A batch store on the sessions' database, sharing its engine and its writes (one writer on SQLite)."""
        return cls(sessions.engine, sessions.writes)

    async def create(self, batch: Batch, sessions: Sequence[ResearchSession]) -> None:
        def statements(conn: Connection) -> None:
            insert_batch(conn, batch, sessions)

        await self._write(statements)

    async def get(self, batch_id: str) -> Batch | None:
        def statements(conn: Connection) -> Batch | None:
            row = conn.execute(select(BATCHES).where(BATCHES.c.batch_id == batch_id)).first()
            return None if row is None else _batch_of(row._mapping)

        return await self._read(statements)

    async def items(self, batch_id: str) -> list[BatchItem]:
        """The items' ranked-table figures, read out of the verdicts' JSON by the database, in the order asked."""
        figures = {k: SESSIONS.c.verdict[k].as_float() for k in ("score", "universe_rank", "position_percent")}
        figures["confidence"] = SESSIONS.c.verdict["confidence"].as_float()
        query = (
            select(
                SESSIONS.c.symbol,
                SESSIONS.c.session_id,
                SESSIONS.c.status,
                SESSIONS.c.judge_status,
                SESSIONS.c.verdict["action"].as_string().label("action"),
                *(v.label(k) for k, v in figures.items()),
            )
            .where(SESSIONS.c.batch_id == batch_id)
            .order_by(SESSIONS.c.batch_position)
        )

        def statements(conn: Connection) -> list[BatchItem]:
            found = []
            for r in conn.execute(query).all():
                judged = r.judge_status == "success"
                numbers = {k: getattr(r, k) if judged else None for k in (*figures,)}
                found.append(BatchItem(r.symbol, r.session_id, r.status, r.action if judged else None, **numbers))
            return found

        return await self._read(statements)

    async def sessions(self, batch_id: str, *, offset: int = 0, limit: int | None = None) -> list[ResearchSession]:
        page = (
            sessions_with_experts()
            .where(SessionRow.batch_id == batch_id)
            .order_by(SessionRow.batch_position)
            .offset(offset)
        )
        if limit is not None:
            page = page.limit(limit)
        async with self._transaction() as db:
            return [to_domain(row, retried_by) for row, retried_by in (await db.execute(page)).all()]

    async def progress(self, batch_id: str) -> BatchProgress:
        def statements(conn: Connection) -> BatchProgress:
            return _progress(conn, batch_id)[0]

        return await self._read(statements)

    async def list(
        self, client_id: str | None, *, offset: int, limit: int, watchlist_id: str | None = None
    ) -> tuple[list[Batch], int]:
        where = [] if client_id is None else [BATCHES.c.client_id == client_id]
        if watchlist_id is not None:
            where.append(BATCHES.c.watchlist_id == watchlist_id)
        page = (
            select(BATCHES)
            .where(*where)
            .order_by(BATCHES.c.created_at.desc(), BATCHES.c.batch_id.desc())
            .offset(offset)
            .limit(limit)
        )

        def statements(conn: Connection) -> tuple[list[Batch], int]:
            total = conn.scalar(select(func.count()).select_from(BATCHES).where(*where)) or 0
            return [_batch_of(r._mapping) for r in conn.execute(page).all()], int(total)

        return await self._read(statements)

    async def previous_run(self, batch: Batch) -> Batch | None:
        if batch.watchlist_id is None:
            return None
        query = (
            select(BATCHES)
            .where(
                BATCHES.c.watchlist_id == batch.watchlist_id,
                BATCHES.c.batch_id != batch.batch_id,
                BATCHES.c.created_at < batch.created_at,
                BATCHES.c.analysis_date <= batch.analysis_date.isoformat(),
                BATCHES.c.status.in_(("completed", "partial", "failed")),
            )
            .order_by(BATCHES.c.created_at.desc())
            .limit(1)
        )

        def statements(conn: Connection) -> Batch | None:
            row = conn.execute(query).first()
            return None if row is None else _batch_of(row._mapping)

        return await self._read(statements)

    async def claim_chunk(self, owner: str, size: int) -> Chunk | None:
        def statements(conn: Connection) -> Chunk | None:
            oldest = conn.execute(
                select(SESSIONS.c.batch_id)
                .where(SESSIONS.c.status == "queued", SESSIONS.c.batch_id.is_not(None))
                .order_by(SESSIONS.c.created_at, SESSIONS.c.batch_position)
                .limit(1)
            ).first()
            if oldest is None:
                return None
            batch_id = str(oldest[0])
            waiting = (
                select(SESSIONS.c.session_id)
                .where(SESSIONS.c.batch_id == batch_id, SESSIONS.c.status == "queued")
                .order_by(SESSIONS.c.batch_position)
                .limit(size)
            )
            if conn.dialect.name == "postgresql":
                waiting = waiting.with_for_update(skip_locked=True)
            picked = [r.session_id for r in conn.execute(waiting).all()]
            if not picked:
                return None
            now = utcnow()
            # One statement, and only the rows it changed count: a claimer that read a stale snapshot (SQLite, two
            # processes) or lost a row to another changes none of those.
            claimed_rows = conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.session_id.in_(picked), SESSIONS.c.status == "queued")
                .values(
                    status="running",
                    owner=owner,
                    resumable=True,
                    started_at=func.coalesce(SESSIONS.c.started_at, now),
                    resume_count=SESSIONS.c.resume_count + case((SESSIONS.c.started_at.is_(None), 0), else_=1),
                    last_event_seq=SESSIONS.c.last_event_seq + 1,
                    updated_at=now,
                )
                .returning(SESSIONS.c.session_id, SESSIONS.c.last_event_seq, SESSIONS.c.resume_count)
            ).all()
            if not claimed_rows:
                return None
            started = [
                {
                    "session_id": r.session_id,
                    "seq": r.last_event_seq,
                    "type": "session.started" if r.resume_count == 0 else "session.resumed",
                    "data": {"instance": owner, "batch_id": batch_id},
                    "created_at": now,
                }
                for r in claimed_rows
            ]
            conn.execute(insert(EVENTS), started)
            conn.execute(
                update(BATCHES)
                .where(BATCHES.c.batch_id == batch_id, BATCHES.c.status == "queued")
                .values(status="running", updated_at=now)
            )
            ids = [r.session_id for r in claimed_rows]
            _notify(conn, ids)
            with Session(bind=conn) as db:
                rows = db.execute(sessions_with_experts().where(SessionRow.session_id.in_(ids))).all()
                claimed = sorted((to_domain(r, by) for r, by in rows), key=lambda s: s.batch_position or 0)
            batch_row = conn.execute(select(BATCHES).where(BATCHES.c.batch_id == batch_id)).one()
            return Chunk(_batch_of(batch_row._mapping), claimed)

        return await self._write(statements)

    async def end_chunk(self, batch_id: str, ended: Sequence[EndedItem], owner: str) -> Batch:
        def statements(conn: Connection) -> Batch:
            _lock_batch(conn, batch_id)
            now = utcnow()
            events, experts, written = [], [], []
            for item in ended:  # one UPDATE each, so that only the rows it changed get their events
                session_id = item.session.session_id
                values = {**_ended_values(item, now), "added": len(item.events), "new_owner": owner}
                numbered = conn.execute(_END_ITEM, values).first()
                if numbered is None:
                    continue  # ended meanwhile (cancelled), or no longer this coordinator's: left as it is
                first = int(numbered[0]) - len(item.events) + 1
                events += [
                    {"session_id": session_id, "seq": first + i, "type": e.type, "data": e.data, "created_at": now}
                    for i, e in enumerate(item.events)
                ]
                experts += [expert_values(session_id, e, o) for e, o in item.session.expert_outcomes.items()]
                written.append(session_id)
            if events:
                conn.execute(insert(EVENTS), events)
            if experts:
                conn.execute(insert(EXPERTS), experts)
            _notify(conn, written)
            return _finish_if_done(conn, batch_id, now)

        return await self._write(statements)

    async def cancel(self, batch_id: str) -> Batch:
        def statements(conn: Connection) -> Batch:
            now = utcnow()
            batch = _lock_batch(conn, batch_id)
            if batch.finished:
                return batch
            event = terminal_event("cancelled")
            # One statement for all, returning the rows it ended (whatever another writer did meanwhile).
            ended = conn.execute(
                update(SESSIONS)
                .where(SESSIONS.c.batch_id == batch_id, SESSIONS.c.status.in_(UNFINISHED))
                .values(
                    status="cancelled",
                    completed_at=now,
                    updated_at=now,
                    last_event_seq=SESSIONS.c.last_event_seq + 1,
                )
                .returning(SESSIONS.c.session_id, SESSIONS.c.last_event_seq)
            ).all()
            if ended:
                rows = [
                    {"session_id": r.session_id, "seq": r.last_event_seq, "type": event.type, "data": event.data}
                    for r in ended
                ]
                conn.execute(insert(EVENTS), [{**row, "created_at": now} for row in rows])
                _notify(conn, [r.session_id for r in ended])
            conn.execute(
                update(BATCHES)
                .where(BATCHES.c.batch_id == batch_id)
                .values(status="cancelled", updated_at=now, completed_at=now)
            )
            return replace(batch, status="cancelled", updated_at=now, completed_at=now)

        return await self._write(statements)

    async def release(self, session_ids: Sequence[str], owner: str) -> None:
        def statements(conn: Connection) -> None:
            conn.execute(
                update(SESSIONS)
                .where(
                    SESSIONS.c.session_id.in_(list(session_ids)),
                    SESSIONS.c.status == "running",
                    SESSIONS.c.owner == owner,
                )
                .values(status="queued", owner=None, updated_at=utcnow())
            )

        await self._write(statements)

    async def waiting_items(self) -> int:
        def statements(conn: Connection) -> int:
            waiting = select(func.count()).where(SESSIONS.c.status == "queued", SESSIONS.c.batch_id.is_not(None))
            return int(conn.scalar(waiting) or 0)

        return await self._read(statements)


_STAGE_COLUMNS = (
    *(f"debate_{c}" for c in ("status", "error", "duration_ms", "usage")),
    "debate_outcome",
    *(f"judge_{c}" for c in ("status", "error", "duration_ms", "usage")),
    "verdict",
)
_ENDED_COLUMNS = ("status", "status_reason", "completed_at", "updated_at", *_STAGE_COLUMNS)
_END_ITEM = (
    update(SESSIONS)
    .where(
        SESSIONS.c.session_id == bindparam("target_session_id"),
        SESSIONS.c.status == "running",
        SESSIONS.c.owner == bindparam("new_owner"),
    )
    .values(
        {
            **{c: bindparam(f"new_{c}") for c in _ENDED_COLUMNS},
            "last_event_seq": SESSIONS.c.last_event_seq + bindparam("added"),
        }
    )
    .returning(SESSIONS.c.last_event_seq)
)


def _ended_values(item: EndedItem, now: datetime) -> dict[str, Any]:
    session = item.session
    values = {
        "status": item.status,
        "status_reason": item.reason,
        "completed_at": now,
        "updated_at": now,
        **stage_values("debate", "debate_outcome", session.debate),
        **stage_values("judge", "verdict", session.judge),
    }
    return {"target_session_id": session.session_id, **{f"new_{c}": values[c] for c in _ENDED_COLUMNS}}


def insert_batch(conn: Connection, batch: Batch, sessions: Sequence[ResearchSession]) -> None:
    """Inserts the batch and its items, each ``queued`` with its ``session.queued`` event (in the caller's
    transaction)."""
    now = utcnow()
    rows = [{**session_values(s), "owner": None, "last_event_seq": 1} for s in sessions]
    events = [
        {"session_id": s.session_id, "seq": 1, "type": "session.queued", "data": {"batch_id": batch.batch_id}}
        for s in sessions
    ]
    conn.execute(insert(BATCHES), _batch_values(batch))
    if rows:
        conn.execute(insert(SESSIONS), rows)
        conn.execute(insert(EVENTS), [{**e, "created_at": now} for e in events])


def _batch_values(batch: Batch) -> dict[str, Any]:
    return {
        "batch_id": batch.batch_id,
        "client_id": batch.client_id,
        "requested_by": batch.requested_by,
        "analysis_date": batch.analysis_date.isoformat(),
        "experts": list(batch.experts),
        "token_budget": batch.token_budget,
        "status": batch.status,
        "total": batch.total,
        "request_id": batch.request_id,
        "created_at": batch.created_at,
        "updated_at": batch.updated_at,
        "completed_at": batch.completed_at,
        "watchlist_id": batch.watchlist_id,
        "schedule_id": batch.schedule_id,
        "channels": list(batch.channels) or None,
    }


def _batch_of(row: Any) -> Batch:
    return Batch(
        batch_id=row["batch_id"],
        analysis_date=date.fromisoformat(row["analysis_date"]),
        experts=list(row["experts"]),
        total=row["total"],
        client_id=row["client_id"],
        requested_by=row["requested_by"],
        token_budget=row["token_budget"],
        status=row["status"],
        request_id=row["request_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        completed_at=row["completed_at"],
        watchlist_id=row["watchlist_id"],
        schedule_id=row["schedule_id"],
        channels=list(row["channels"] or []),
    )


def _lock_batch(conn: Connection, batch_id: str) -> Batch:
    """The batch's row, locked until the transaction ends (PostgreSQL; SQLite has one writer)."""
    query = select(BATCHES).where(BATCHES.c.batch_id == batch_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    row = conn.execute(query).first()
    if row is None:
        raise BatchNotFoundError(batch_id)
    return _batch_of(row._mapping)


def _progress(conn: Connection, batch_id: str) -> tuple[BatchProgress, int, int]:
    """The batch's progress, how many items completed, and how many are still queued or running."""
    grouped = select(SESSIONS.c.status, func.count()).where(SESSIONS.c.batch_id == batch_id).group_by(SESSIONS.c.status)
    counts: dict[str, int] = {str(status): int(n) for status, n in conn.execute(grouped).all()}
    total = sum(counts.values())
    unfinished = sum(counts.get(s, 0) for s in UNFINISHED)
    failed = sum(counts.get(s, 0) for s in FAILED_ITEM)
    return BatchProgress(done=total - unfinished, total=total, failed=failed), counts.get("completed", 0), unfinished


def _finish_if_done(conn: Connection, batch_id: str, now: datetime) -> Batch:
    """The batch (its row locked by the caller), given its final status when no item is left to run."""
    batch = _batch_of(conn.execute(select(BATCHES).where(BATCHES.c.batch_id == batch_id)).one()._mapping)
    progress, completed, unfinished = _progress(conn, batch_id)
    if batch.finished or unfinished:
        return batch
    status: BatchStatus = batch_status_of(progress, completed)
    conn.execute(
        update(BATCHES).where(BATCHES.c.batch_id == batch_id).values(status=status, updated_at=now, completed_at=now)
    )
    ended = replace(batch, status=status, updated_at=now, completed_at=now)
    queue_deliveries(conn, ended, now)
    return ended


def _notify(conn: Connection, session_ids: Sequence[str]) -> None:
    for session_id in session_ids:
        notify_events(conn, session_id)
