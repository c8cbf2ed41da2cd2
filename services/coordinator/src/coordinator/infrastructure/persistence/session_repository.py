"""``ISessionRepository`` on SQLAlchemy 2: every write is one short transaction, committed before the
method returns.

Writes are SQLAlchemy Core statements (a stage's write is a statement or two), run by ``write_transactions``:
on a SQLite file, on a thread of their own; otherwise through the async engine. Reads go through the async
engine and the ORM (sessions are loaded with their expert rows). The coordinators' instance rows: ``instances``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Connection, Insert, Select, Table, Update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Session, aliased, selectinload
from sqlalchemy.sql.expression import and_, bindparam, delete, exists, func, insert, or_, select, update

from coordinator.domain.dtos.research_dtos import ExpertFailure
from coordinator.domain.exceptions import (
    IdempotencyKeyTakenError,
    RetryAlreadyStartedError,
    SessionNotFoundError,
    SessionStoreUnavailableError,
)
from coordinator.domain.model.events import NewEvent, SessionEvent
from coordinator.domain.model.outcome import TECHNICAL, StoredVerdict, iso_day, technical_option_date
from coordinator.domain.model.session import (
    IDEMPOTENCY_HOURS,
    ExpertOutcome,
    ResearchSession,
    SessionStatus,
    StageOutcome,
    utcnow,
)
from coordinator.domain.ports.job_store import Enqueued, IJobStore, Started
from coordinator.domain.ports.session_repository import ISessionRepository, VerdictFilter
from coordinator.infrastructure.persistence.event_notifications import notify_events
from coordinator.infrastructure.persistence.tables import EventRow, ExpertRow, SessionRow
from coordinator.infrastructure.persistence.usage_ledger import SqlAlchemyUsageLedger
from coordinator.infrastructure.persistence.write_transactions import Statements, WriteTransactions
from shared_contracts.experts import is_iso_date

SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table
EXPERTS: Table = ExpertRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
UNFINISHED = ("queued", "running")
# The write path's statements are built once and executed with parameters.
INSERT_SESSION: Insert = insert(SESSIONS)
INSERT_EXPERTS: Insert = insert(EXPERTS)
ALONE = SESSIONS.c.batch_id.is_(None)
"""A research asked for alone: the research queue holds these (a batch's items wait in the batches' queue)."""
QUEUE_LENGTH = select(func.count()).select_from(SESSIONS).where(SESSIONS.c.status == "queued", ALONE)
INSERT_EVENTS: Insert = insert(EVENTS)
_NUMBERED = {"last_event_seq": SESSIONS.c.last_event_seq + bindparam("added")}
"""What a statement that updates a session row and appends ``added`` events to it also sets (it returns the
new last number)."""
BUMP_EVENT_SEQ = (
    update(SESSIONS).where(SESSIONS.c.session_id == bindparam("target_session_id")).values(_NUMBERED)
).returning(SESSIONS.c.last_event_seq)
LAST_EVENT_NUMBER = 2**63 - 1
"""The largest number a BIGINT column holds: a position after it is after every event."""
EVENTS_AFTER = (
    select(EVENTS)
    .where(EVENTS.c.session_id == bindparam("target_session_id"), EVENTS.c.seq > bindparam("after"))
    .order_by(EVENTS.c.seq)
    .limit(bindparam("most"))
)
OLDEST_QUEUED = (
    select(SESSIONS.c.session_id, SESSIONS.c.started_at)
    .where(SESSIONS.c.status == "queued", ALONE)
    .order_by(SESSIONS.c.created_at, SESSIONS.c.session_id)
    .limit(1)
)
_NOW: BindParameter[datetime] = bindparam("now")
_CLAIMED = {"status": "running", "owner": bindparam("new_owner"), "updated_at": _NOW}
_STILL_QUEUED = (SESSIONS.c.session_id == bindparam("target_session_id")) & (SESSIONS.c.status == "queued")
CLAIM_FIRST = update(SESSIONS).where(_STILL_QUEUED).values({**_CLAIMED, **_NUMBERED, "started_at": _NOW})
CLAIM_AGAIN = (
    update(SESSIONS).where(_STILL_QUEUED).values({**_CLAIMED, **_NUMBERED, "resume_count": SESSIONS.c.resume_count + 1})
)
END_UNFINISHED = (
    update(SESSIONS)
    .where(SESSIONS.c.session_id == bindparam("target_session_id"), SESSIONS.c.status.in_(UNFINISHED))
    .values(
        status=bindparam("new_status"),
        status_reason=bindparam("reason"),
        completed_at=_NOW,
        updated_at=_NOW,
        **_NUMBERED,
    )
    .returning(SESSIONS.c.last_event_seq)
)
_LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


class SqlAlchemySessionRepository(SqlAlchemyUsageLedger, ISessionRepository, IJobStore):
    """``owner``: the coordinator instance whose sessions this repository creates (``instances.InstanceLease``),
    stored with each. It is also the usage ledger (the same database)."""

    def __init__(self, engine: AsyncEngine, owner: str | None = None, writes: WriteTransactions | None = None) -> None:
        super().__init__(engine, writes)
        self.owner = owner
        self._upsert_expert = _expert_upsert(engine.dialect.name)
        # Sessions whose final status could not be written (the store was down): written when it answers
        # again (``write_unwritten_finishes``, called by the instance lease), so none stays ``running``.
        self._unwritten_finishes: dict[str, tuple[SessionStatus, datetime]] = {}

    async def create(self, session: ResearchSession) -> None:
        await self._store_new(session, queued=False)

    async def enqueue(
        self,
        session: ResearchSession,
        *,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        return await self._store_new(session, queued=True, claim=claim, queue_limit=queue_limit, started=started)

    async def _store_new(
        self,
        session: ResearchSession,
        *,
        queued: bool,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        """``create``, or ``enqueue`` (``queued``): one transaction, so a queued session is claimable only with
        its ``session.queued`` event first."""
        values, owner = {**_session_values(session), "owner": self.owner}, self.owner
        experts = [_expert_values(session.session_id, e, o) for e, o in session.expert_outcomes.items()]

        def statements(conn: Connection) -> Enqueued:
            ahead = int(conn.scalar(QUEUE_LENGTH) or 0) if queued else 0
            if queue_limit is not None and ahead >= queue_limit:
                return Enqueued(0)
            if session.idempotency_key is not None:  # a key older than its window is free again
                conn.execute(
                    update(SESSIONS)
                    .where(
                        SESSIONS.c.client_id == session.client_id,
                        SESSIONS.c.idempotency_key == session.idempotency_key,
                        SESSIONS.c.created_at < utcnow() - timedelta(hours=IDEMPOTENCY_HOURS),
                    )
                    .values(idempotency_key=None)
                )
            queued_event = [NewEvent("session.queued", {"position": ahead + 1})] if queued else []
            conn.execute(INSERT_SESSION, {**values, "last_event_seq": len(queued_event)})
            if experts:
                conn.execute(INSERT_EXPERTS, experts)
            if not queued:
                return Enqueued(ahead + 1)
            _insert_events(conn, session.session_id, queued_event, last=len(queued_event))
            stored = replace(session, last_event_seq=len(queued_event))
            return Enqueued(ahead + 1, _claim_oldest(conn, owner, started, stored, alone=not ahead) if claim else None)

        try:
            return await self._write(statements)
        except IntegrityError:
            key = session.idempotency_key
            if key is not None and (holder := await self.find_idempotent(session.client_id, key, _LONG_AGO)):
                raise IdempotencyKeyTakenError(key, holder) from None
            if session.retried_from is None:
                raise
            existing = await self._retry_of(session.retried_from)
            if existing is None:
                raise
            raise RetryAlreadyStartedError(
                session.retried_from, existing.session_id, in_progress=existing.status == "running"
            ) from None

    async def _retry_of(self, source_id: str) -> SessionRow | None:
        async with self._transaction() as db:
            found: SessionRow | None = await db.scalar(select(SessionRow).where(SessionRow.retried_from == source_id))
            return found

    async def record_expert(
        self, session_id: str, expert: str, outcome: ExpertOutcome, events: Sequence[NewEvent] = ()
    ) -> None:
        values = _expert_values(session_id, expert, outcome)

        def statements(conn: Connection) -> None:
            _touch(conn, session_id, events)
            conn.execute(self._upsert_expert, values)

        await self._write(statements)

    async def record_debate(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        await self._write(_touching(session_id, events, **_stage_values("debate", "debate_outcome", stage)))

    async def record_verdict(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        await self._write(_touching(session_id, events, **_stage_values("judge", "verdict", stage)))

    async def finish(self, session_id: str, status: SessionStatus) -> None:
        """A final status is final: a session already ``interrupted`` (by a replica that took this one for
        gone) keeps that status. When the store is unavailable the status is kept to be written later."""
        now = utcnow()
        try:
            await self._write(_finishing(session_id, status, now))
        except SessionStoreUnavailableError:
            self._unwritten_finishes[session_id] = (status, now)
            raise
        self._unwritten_finishes.pop(session_id, None)

    async def write_unwritten_finishes(self) -> int:
        """Write the final statuses the store refused earlier; returns how many were written."""
        unwritten = list(self._unwritten_finishes.items())
        for session_id, (status, completed_at) in unwritten:
            await self._write(_finishing(session_id, status, completed_at))
            del self._unwritten_finishes[session_id]
        return len(unwritten)

    async def get(self, session_id: str) -> ResearchSession | None:
        async with self._transaction() as db:
            found = (await db.execute(_sessions().where(SessionRow.session_id == session_id))).first()
            if found is None:
                return None
            row, retried_by = found
            return _to_domain(row, retried_by)

    async def list(
        self,
        *,
        symbol: str | None,
        status: SessionStatus | None,
        limit: int,
        offset: int,
        client_id: str | None = None,
        days: tuple[date | None, date | None] = (None, None),
    ) -> tuple[list[ResearchSession], int]:
        """Newest first (ties broken by id, so pages are stable); returns (page, total matching).
        ``symbol`` matches case-insensitively."""
        if limit < 1 or offset < 0:
            raise ValueError("limit must be >= 1 and offset >= 0")
        filters = [] if client_id is None else [SessionRow.client_id == client_id]
        if symbol is not None:
            filters.append(func.upper(SessionRow.symbol) == symbol.strip().upper())
        if status is not None:
            filters.append(SessionRow.status == status)
        first, last = days
        if first is not None:
            filters.append(SessionRow.analysis_date >= first.isoformat())
        if last is not None:
            filters.append(SessionRow.analysis_date <= last.isoformat())
        page = (
            _sessions()
            .where(*filters)
            .order_by(SessionRow.created_at.desc(), SessionRow.session_id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self._transaction() as db:
            total = await db.scalar(select(func.count()).select_from(SessionRow).where(*filters))
            rows = (await db.execute(page)).all()
            return [_to_domain(row, retried_by) for row, retried_by in rows], int(total or 0)

    async def list_verdicts(self, where: VerdictFilter, *, limit: int) -> tuple[Sequence[StoredVerdict], int]:
        """Only the columns an outcome needs (not the experts' data: the technical analyst's ``as_of`` is read
        out of its JSON), newest first (ties broken by id)."""
        if limit < 1:
            raise ValueError("limit must be >= 1")
        technical = aliased(ExpertRow)
        as_of = technical.data["as_of"].as_string()
        filters = _verdict_filters(where)
        columns = (SessionRow.session_id, SessionRow.symbol, SessionRow.verdict, SessionRow.analysis_date)
        succeeded = and_(
            technical.session_id == SessionRow.session_id, technical.expert == TECHNICAL, technical.status == "success"
        )
        rows = (
            select(*columns, SessionRow.options, SessionRow.created_at, as_of)
            .outerjoin(technical, succeeded)
            .where(*filters)
            .order_by(SessionRow.created_at.desc(), SessionRow.session_id.desc())
            .limit(limit)
        )
        async with self._transaction() as db:
            total = await db.scalar(select(func.count()).select_from(SessionRow).where(*filters))
            found = (await db.execute(rows)).all()
        verdicts = [
            StoredVerdict(session_id, symbol, verdict, _day(day), iso_day(as_of), technical_option_date(options), at)
            for session_id, symbol, verdict, day, options, at, as_of in found
        ]
        return verdicts, int(total or 0)

    async def purge(self, created_before: datetime) -> int:
        """Delete the finished sessions created before ``created_before`` (with their expert rows); a kept
        retry of a deleted session loses its ``retried_from`` link. Returns how many were deleted."""
        expired = select(SESSIONS.c.session_id).where(
            SESSIONS.c.created_at < created_before, SESSIONS.c.status.not_in(UNFINISHED)
        )

        def statements(conn: Connection) -> int:
            ids = list(conn.execute(expired).scalars())
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                conn.execute(
                    update(SESSIONS)
                    .where(SESSIONS.c.retried_from.in_(chunk), SESSIONS.c.session_id.not_in(chunk))
                    .values(retried_from=None)
                )
                conn.execute(delete(EXPERTS).where(EXPERTS.c.session_id.in_(chunk)))
                conn.execute(delete(EVENTS).where(EVENTS.c.session_id.in_(chunk)))
                conn.execute(delete(SESSIONS).where(SESSIONS.c.session_id.in_(chunk)))
            return len(ids)

        return await self._write(statements)

    async def ping(self) -> None:
        async with self._transaction() as db:
            await db.execute(select(SessionRow.session_id).limit(1))

    async def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        def statements(conn: Connection) -> int:
            return _append(conn, session_id, events)

        return await self._write(statements)

    async def events_after(self, session_id: str, after: int, *, limit: int = 500) -> Sequence[SessionEvent]:
        """A Core read (``_read``: on a SQLite file, on a reader thread): a subscriber's read of a session's
        events, done by many at once when submissions arrive together."""
        parameters = {"target_session_id": session_id, "after": min(after, LAST_EVENT_NUMBER), "most": limit}

        def statements(conn: Connection) -> list[SessionEvent]:
            found = conn.execute(EVENTS_AFTER, parameters).all()
            return [SessionEvent(r.session_id, r.seq, r.type, r.data, r.created_at) for r in found]

        return await self._read(statements)

    async def end(
        self, session_id: str, status: SessionStatus, events: Sequence[NewEvent], *, reason: str | None = None
    ) -> bool:
        now = utcnow()

        def statements(conn: Connection) -> bool:
            parameters = {"target_session_id": session_id, "new_status": status, "reason": reason, "now": now}
            ended = conn.execute(END_UNFINISHED, {**parameters, "added": len(events)}).first()
            if ended is None:
                return False
            _insert_events(conn, session_id, events, last=int(ended[0]))
            return True

        try:
            return await self._write(statements)
        except SessionStoreUnavailableError:
            self._unwritten_finishes[session_id] = (status, now)
            raise

    async def claim_next(self, started: Started | None = None) -> ResearchSession | None:
        owner = self.owner
        return await self._write(lambda conn: _claim_oldest(conn, owner, started))

    async def queued(self) -> Sequence[str]:
        rows = (
            select(SESSIONS.c.session_id)
            .where(SESSIONS.c.status == "queued", ALONE)
            .order_by(SESSIONS.c.created_at, SESSIONS.c.session_id)
        )
        async with self._transaction() as db:
            return list((await db.execute(rows)).scalars())

    async def statuses(self, session_ids: Sequence[str]) -> dict[str, SessionStatus]:
        if not session_ids:
            return {}
        rows = select(SESSIONS.c.session_id, SESSIONS.c.status).where(SESSIONS.c.session_id.in_(list(session_ids)))
        async with self._transaction() as db:
            return {r.session_id: r.status for r in (await db.execute(rows)).all()}

    async def find_idempotent(self, client_id: str, key: str, since: datetime) -> ResearchSession | None:
        newest = (
            select(SESSIONS.c.session_id)
            .where(SESSIONS.c.client_id == client_id, SESSIONS.c.idempotency_key == key, SESSIONS.c.created_at >= since)
            .order_by(SESSIONS.c.created_at.desc())
            .limit(1)
        )
        async with self._transaction() as db:
            found = await db.scalar(newest)
        return None if found is None else await self.get(found)


_TARGET = "target_session_id"
_NEW = "new_"  # a bound parameter of an UPDATE's SET may not be named after its column


@functools.cache
def _session_update(columns: tuple[str, ...], numbered: bool) -> Update:
    """The UPDATE of one session row that sets ``columns`` (and, ``numbered``, counts the events appended with
    it, returning the last number): one statement per set of columns (a few)."""
    statement = (
        update(SESSIONS)
        .where(SESSIONS.c.session_id == bindparam(_TARGET))
        .values({column: bindparam(f"{_NEW}{column}") for column in columns})
    )
    return statement.values(_NUMBERED).returning(SESSIONS.c.last_event_seq) if numbered else statement


def _touch(conn: Connection, session_id: str, events: Sequence[NewEvent] = (), **values: Any) -> None:
    """Update the session row (and its ``updated_at``) and append ``events`` to the session, numbered by the same
    statement; the row lock it takes on PostgreSQL also orders concurrent writes to one session. Raises
    ``SessionNotFoundError`` for an unknown id."""
    values = {"updated_at": utcnow(), **values}
    parameters = {f"{_NEW}{column}": value for column, value in values.items()}
    statement = _session_update(tuple(sorted(values)), bool(events))
    result = conn.execute(statement, {_TARGET: session_id, **parameters, "added": len(events)})
    if not events:
        if result.rowcount == 0:
            raise SessionNotFoundError(session_id)
        return
    numbered = result.first()
    if numbered is None:
        raise SessionNotFoundError(session_id)
    _insert_events(conn, session_id, events, last=int(numbered[0]))


def _append(conn: Connection, session_id: str, events: Sequence[NewEvent]) -> int:
    """Number ``events`` after the session's last (the row's update also orders concurrent appends) and insert
    them; returns the last number."""
    if not events:
        return int(conn.scalar(select(SESSIONS.c.last_event_seq).where(SESSIONS.c.session_id == session_id)) or 0)
    bumped = conn.execute(BUMP_EVENT_SEQ, {"target_session_id": session_id, "added": len(events)}).first()
    if bumped is None:
        raise SessionNotFoundError(session_id)
    last = int(bumped[0])
    _insert_events(conn, session_id, events, last=last)
    return last


def _insert_events(conn: Connection, session_id: str, events: Sequence[NewEvent], *, last: int) -> None:
    """Insert ``events``, numbered up to ``last`` (the session row's counter, already advanced by them)."""
    now = utcnow()
    first = last - len(events) + 1
    rows = [
        {"session_id": session_id, "seq": first + i, "type": e.type, "data": e.data, "created_at": now}
        for i, e in enumerate(events)
    ]
    conn.execute(INSERT_EVENTS, rows)
    notify_events(conn, session_id)


def _claim_oldest(
    conn: Connection,
    owner: str | None,
    started: Started | None,
    inserted: ResearchSession | None = None,
    *,
    alone: bool = False,
) -> ResearchSession | None:
    """The oldest queued session, made ``running`` for ``owner`` with its ``started`` event (see
    ``IJobStore.claim_next``), read back; when it is ``inserted`` (stored by this transaction, never run), that
    session as it is now stored. ``alone``: ``inserted`` is the only queued session this transaction sees."""
    claimed = _claim_oldest_row(conn, owner, inserted, numbered=started is not None, alone=alone)
    if claimed is not None and started is not None:  # the claim has counted its event
        _insert_events(conn, claimed.session_id, [started(claimed)], last=claimed.last_event_seq)
    return claimed


def _claim_oldest_row(
    conn: Connection, owner: str | None, inserted: ResearchSession | None, *, numbered: bool, alone: bool
) -> ResearchSession | None:
    """``numbered``: the claim counts one event in the row's ``last_event_seq`` (the caller appends it); ``alone``:
    the oldest is ``inserted`` (no need to look)."""
    for _ in range(10):  # another coordinator may take the oldest first: then the next oldest
        found = (inserted.session_id, None) if alone and inserted is not None else conn.execute(OLDEST_QUEUED).first()
        if found is None:
            return None
        (session_id, started_at), now, alone = found, utcnow(), False
        claim = CLAIM_FIRST if started_at is None else CLAIM_AGAIN  # a first claim, or a resume
        parameters = {"target_session_id": session_id, "new_owner": owner, "now": now, "added": int(numbered)}
        if conn.execute(claim, parameters).rowcount:
            if inserted is not None and inserted.session_id == session_id:
                counted = inserted.last_event_seq + int(numbered)
                return replace(inserted, status="running", started_at=now, updated_at=now, last_event_seq=counted)
            with Session(bind=conn) as db:
                row, retried_by = db.execute(_sessions().where(SessionRow.session_id == session_id)).one()
                return _to_domain(row, retried_by)
    return None


def _finishing(session_id: str, status: SessionStatus, at: datetime) -> Statements[None]:
    def statements(conn: Connection) -> None:
        result = conn.execute(
            update(SESSIONS)
            .where(SESSIONS.c.session_id == session_id, SESSIONS.c.status == "running")
            .values(status=status, completed_at=at, updated_at=at)
        )
        if (
            result.rowcount == 0
            and conn.scalar(select(SESSIONS.c.status).where(SESSIONS.c.session_id == session_id)) is None
        ):
            raise SessionNotFoundError(session_id)

    return statements


def _touching(session_id: str, events: Sequence[NewEvent], **values: Any) -> Statements[None]:
    def statements(conn: Connection) -> None:
        _touch(conn, session_id, events, **values)

    return statements


@functools.cache
def _sessions() -> Select[SessionRow, str]:
    """Sessions with their expert rows and the id of the session that retried each (at most one: the
    ``retried_from`` column is unique)."""
    retry = aliased(SessionRow)
    return (
        select(SessionRow, retry.session_id)
        .outerjoin(retry, retry.retried_from == SessionRow.session_id)
        .options(selectinload(SessionRow.expert_rows))
    )


def _verdict_filters(where: VerdictFilter) -> list[ColumnElement[bool]]:
    """Sessions with a verdict, not retried, matching ``where``. The research day is ``analysis_date`` (ISO
    text: compared as text), or for a row stored without one the UTC day of ``created_at``."""
    retry = aliased(SessionRow)
    filters: list[ColumnElement[bool]] = [
        SessionRow.judge_status == "success",
        SessionRow.verdict.is_not(None),
        ~exists().where(retry.retried_from == SessionRow.session_id),
    ]
    if where.client_id is not None:
        filters.append(SessionRow.client_id == where.client_id)
    if where.symbol is not None:
        filters.append(func.upper(SessionRow.symbol) == where.symbol.strip().upper())
    if where.engine is not None:
        engine = func.coalesce(
            SessionRow.verdict[("engine", "model")].as_string(), SessionRow.verdict[("engine", "kind")].as_string()
        )
        filters.append(engine == where.engine)
    undated = SessionRow.analysis_date.is_(None)
    if where.start is not None:
        first = datetime.combine(where.start, time(), tzinfo=UTC)
        filters.append(
            or_(SessionRow.analysis_date >= where.start.isoformat(), and_(undated, SessionRow.created_at >= first))
        )
    if where.end is not None:
        last = datetime.combine(where.end, time.max, tzinfo=UTC)
        filters.append(
            or_(SessionRow.analysis_date <= where.end.isoformat(), and_(undated, SessionRow.created_at <= last))
        )
    return filters


def _expert_upsert(dialect: str) -> Any:
    """INSERT of an expert's row that replaces a row already recorded for that expert (both backends
    speak ``ON CONFLICT``)."""
    insert_for = sqlite_insert if dialect == "sqlite" else postgresql_insert
    statement = insert_for(EXPERTS)
    replaced = {c.name: statement.excluded[c.name] for c in EXPERTS.columns if not c.primary_key}
    return statement.on_conflict_do_update(index_elements=[EXPERTS.c.session_id, EXPERTS.c.expert], set_=replaced)


_SESSION_FIELDS: tuple[str, ...] = ("session_id", "symbol", "skip_debate", "status", "retry_count", "retried_from")
_SESSION_FIELDS += (
    "request_id",
    "client_id",
    "requested_by",
    "created_at",
    "updated_at",
    "completed_at",
    "resumable",
    "started_at",
)
_SESSION_FIELDS += ("resume_count", "status_reason", "idempotency_key", "request_hash", "token_budget")
_SESSION_FIELDS += ("batch_id", "batch_position")
"""What is stored as it is, in the column of its name (experts' and stages' columns apart)."""
_EXPERT_FIELDS = ("status", "data", "error", "duration_ms", "attempts")


def _expert_values(session_id: str, expert: str, outcome: ExpertOutcome) -> dict[str, Any]:
    fields = {name: getattr(outcome, name) for name in _EXPERT_FIELDS}
    failure = outcome.failure.model_dump(mode="json") if outcome.failure is not None else None
    return {"session_id": session_id, "expert": expert, **fields, "failure": failure, "recorded_at": utcnow()}


def _expert_outcome(row: ExpertRow) -> ExpertOutcome:
    failure = ExpertFailure.model_validate(row.failure) if row.failure else None
    return ExpertOutcome(**{name: getattr(row, name) for name in _EXPERT_FIELDS}, failure=failure)


def _session_values(session: ResearchSession) -> dict[str, Any]:
    return {
        **{name: getattr(session, name) for name in _SESSION_FIELDS},
        "experts": list(session.experts),
        "options": {k: dict(v) for k, v in session.options.items()},
        "analysis_date": session.analysis_date.isoformat() if session.analysis_date is not None else None,
        "carried_stages": list(session.carried_stages) or None,
        **_stage_values("debate", "debate_outcome", session.debate),
        **_stage_values("judge", "verdict", session.judge),
    }


def _stage_values(stage: str, data_column: str, outcome: StageOutcome) -> dict[str, Any]:
    return {
        f"{stage}_status": outcome.status,
        f"{stage}_error": outcome.error,
        f"{stage}_duration_ms": outcome.duration_ms,
        data_column: outcome.data,
        f"{stage}_usage": outcome.usage,
    }


def _day(text: str | None) -> date | None:
    """The stored ISO day; anything else (not written by this code) reads as no date."""
    return date.fromisoformat(text) if text is not None and is_iso_date(text) else None


def _to_domain(row: SessionRow, retried_by: str | None = None) -> ResearchSession:
    """Statuses are read as stored: CHECK constraints guard them."""
    by_expert = {r.expert: r for r in row.expert_rows}
    ordered = [e for e in row.experts if e in by_expert] + [e for e in by_expert if e not in row.experts]
    return ResearchSession(
        **{name: getattr(row, name) for name in _SESSION_FIELDS},
        experts=list(row.experts),
        options=dict(row.options),
        analysis_date=_day(row.analysis_date),
        retried_by=retried_by,
        last_event_seq=row.last_event_seq,
        carried_stages=list(row.carried_stages or []),
        expert_outcomes={e: _expert_outcome(by_expert[e]) for e in ordered},
        debate=StageOutcome(
            row.debate_status,  # type: ignore[arg-type]
            row.debate_error,
            row.debate_duration_ms,
            row.debate_outcome,
            row.debate_usage,
        ),
        judge=StageOutcome(row.judge_status, row.judge_error, row.judge_duration_ms, row.verdict, row.judge_usage),  # type: ignore[arg-type]
    )
