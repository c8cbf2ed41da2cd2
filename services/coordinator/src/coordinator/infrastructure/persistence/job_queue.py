"""``IJobStore`` on SQLAlchemy 2: the sessions table as a durable queue. A new session is stored (``queued`` with its
first event, or ``running`` for ``create``) within its client's share of the queue, claimed round-robin across clients
(``NEXT_QUEUED``; ``UPDATE … WHERE status = 'queued'``: two claimers never get one session), and ended with its
terminal event in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import BindParameter, Connection, Insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import bindparam, case, func, insert, select, tuple_, update

from coordinator.domain.exceptions import (
    IdempotencyKeyTakenError,
    RetryAlreadyStartedError,
    SessionStoreUnavailableError,
)
from coordinator.domain.model.events import NewEvent, SessionEvent
from coordinator.domain.model.session import IDEMPOTENCY_HOURS, ResearchSession, SessionStatus, utcnow
from coordinator.domain.ports.job_store import Claim, Enqueued, IJobStore, Started
from coordinator.infrastructure.persistence import session_event_log
from coordinator.infrastructure.persistence.session_event_log import NUMBERED, insert_events
from coordinator.infrastructure.persistence.session_rows import (
    EXPERTS,
    SESSIONS,
    UNFINISHED,
    expert_values,
    load_session,
    session_values,
    sessions_with_experts,
    to_domain,
)
from coordinator.infrastructure.persistence.tables import SessionRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore, Statements, T

INSERT_SESSION: Insert = insert(SESSIONS)
INSERT_EXPERTS: Insert = insert(EXPERTS)
ALONE = SESSIONS.c.batch_id.is_(None)
"""A research asked for alone: the research queue holds these (a batch's items wait in the batches' queue)."""
_QUEUED = (SESSIONS.c.status == "queued") & ALONE
_OF_CLIENT = SESSIONS.c.client_id == bindparam("client")
_OF_CLIENT_COUNT = func.coalesce(func.sum(case((_OF_CLIENT, 1), else_=0)), 0)
WAITING = select(func.count(), func.count(SESSIONS.c.client_id.distinct()), _OF_CLIENT_COUNT).where(_QUEUED)
"""The queue's length, how many clients wait in it, and how many of its sessions are the ``client``'s."""
_RUNNING = (
    select(SESSIONS.c.client_id, func.count().label("running"))
    .where(SESSIONS.c.status == "running", ALONE)
    .group_by(SESSIONS.c.client_id)
    .subquery("running_per_client")
)
_TURNS = (
    select(
        SESSIONS.c.session_id,
        SESSIONS.c.started_at,
        SESSIONS.c.client_id,
        SESSIONS.c.created_at,
        func.row_number()
        .over(partition_by=SESSIONS.c.client_id, order_by=(SESSIONS.c.created_at, SESSIONS.c.session_id))
        .label("turn"),
    )
    .where(_QUEUED)
    .subquery("queued_in_turn")
)
NEXT_QUEUED = (
    select(_TURNS.c.session_id, _TURNS.c.started_at)
    .outerjoin(_RUNNING, _RUNNING.c.client_id == _TURNS.c.client_id)
    .order_by(func.coalesce(_RUNNING.c.running, 0) + _TURNS.c.turn, _TURNS.c.created_at, _TURNS.c.session_id)
    .limit(1)
)
"""The session to claim next, clients in turn: a client's k-th queued session comes after k - 1 of its own and after
as many as it has running (its sessions running, plus k), the oldest first among equals; so one client's many queued
sessions do not hold back another's, which starts before the first client's next but one at the latest."""
_SELF = SESSIONS.alias("this_session")
QUEUE_POSITION = (
    select(func.count())
    .select_from(SESSIONS)
    .join(_SELF, _SELF.c.client_id == SESSIONS.c.client_id)
    .where(
        _SELF.c.session_id == bindparam("target_session_id"),
        _SELF.c.status == "queued",
        _QUEUED,
        tuple_(SESSIONS.c.created_at, SESSIONS.c.session_id) <= tuple_(_SELF.c.created_at, _SELF.c.session_id),
    )
)
"""A queued session's place among its own client's queued sessions (0: it is not queued)."""


def client_share(queue_limit: int, clients_waiting: int, waiting_of_client: int) -> int:
    """How many queued sessions a client may hold: ``queue_limit`` shared equally among the clients with sessions
    waiting, itself included (the whole limit for a client alone), at least one when the limit is not 0. A client
    below its share is admitted even when others have filled the queue, so the queue holds at most about twice
    the limit."""
    clients = clients_waiting + (0 if waiting_of_client else 1)
    return max(1, queue_limit // clients) if queue_limit else 0


_NOW: BindParameter[datetime] = bindparam("now")
_CLAIMED = {"status": "running", "owner": bindparam("new_owner"), "updated_at": _NOW}
_STILL_QUEUED = (SESSIONS.c.session_id == bindparam("target_session_id")) & (SESSIONS.c.status == "queued")
CLAIM_FIRST = update(SESSIONS).where(_STILL_QUEUED).values({**_CLAIMED, **NUMBERED, "started_at": _NOW})
CLAIM_AGAIN = (
    update(SESSIONS).where(_STILL_QUEUED).values({**_CLAIMED, **NUMBERED, "resume_count": SESSIONS.c.resume_count + 1})
)
END_UNFINISHED = (
    update(SESSIONS)
    .where(SESSIONS.c.session_id == bindparam("target_session_id"), SESSIONS.c.status.in_(UNFINISHED))
    .values(
        status=bindparam("new_status"),
        status_reason=bindparam("reason"),
        completed_at=_NOW,
        updated_at=_NOW,
        **NUMBERED,
    )
    .returning(SESSIONS.c.last_event_seq)
)
_LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


class SqlAlchemyJobQueue(SqlAlchemyStore, IJobStore):
    owner: str | None
    """The coordinator instance that stores and claims sessions through this queue."""
    _unwritten_finishes: dict[str, Statements[object]]
    """The final writes the store refused (it was down), by session: written again by the instance lease."""

    async def enqueue(
        self,
        session: ResearchSession,
        *,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        return await self.store_new(session, queued=True, claim=claim, queue_limit=queue_limit, started=started)

    async def store_new(
        self,
        session: ResearchSession,
        *,
        queued: bool,
        claim: bool = False,
        queue_limit: int | None = None,
        started: Started | None = None,
    ) -> Enqueued:
        """``create``, or ``enqueue`` (``queued``): one transaction, so a queued session is claimable only with
        its ``session.queued`` event first. Raises ``IdempotencyKeyTakenError`` (another session holds the key) or
        ``RetryAlreadyStartedError`` (its source has a retry already)."""
        values, owner = {**session_values(session), "owner": self.owner}, self.owner
        experts = [expert_values(session.session_id, e, o) for e, o in session.expert_outcomes.items()]

        def statements(conn: Connection) -> Enqueued:
            total, clients, mine = conn.execute(WAITING, {"client": session.client_id}).one() if queued else (0, 0, 0)
            if queue_limit is not None and mine >= client_share(queue_limit, clients, mine):
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
            queued_event = [NewEvent("session.queued", {"position": mine + 1})] if queued else []
            conn.execute(INSERT_SESSION, {**values, "last_event_seq": len(queued_event)})
            if experts:
                conn.execute(INSERT_EXPERTS, experts)
            if not queued:
                return Enqueued(mine + 1)
            insert_events(conn, session.session_id, queued_event, last=len(queued_event))
            stored = replace(session, last_event_seq=len(queued_event))
            claimed = claim_next_queued(conn, owner, started, stored, alone=not total) if claim else None
            return Enqueued(mine + 1, claimed)

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

    async def claim_next(self, started: Started | None = None) -> ResearchSession | None:
        owner = self.owner
        return await self._write(lambda conn: claim_next_queued(conn, owner, started))

    async def end(
        self, session_id: str, status: SessionStatus, events: Sequence[NewEvent], *, reason: str | None = None
    ) -> bool:
        now = utcnow()

        def statements(conn: Connection) -> bool:
            parameters = {"target_session_id": session_id, "new_status": status, "reason": reason, "now": now}
            ended = conn.execute(END_UNFINISHED, {**parameters, "added": len(events)}).first()
            if ended is None:
                return False
            insert_events(conn, session_id, events, last=int(ended[0]))
            return True

        return await self._write_final(session_id, statements)

    async def _write_final(self, session_id: str, statements: Statements[T]) -> T:
        """A session's final write; one the store refuses (it is down) is kept, to be written when it is back."""
        try:
            written = await self._write(statements)
        except SessionStoreUnavailableError:
            self._unwritten_finishes[session_id] = statements
            raise
        self._unwritten_finishes.pop(session_id, None)
        return written

    async def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        return await self._write(lambda conn: session_event_log.append_events(conn, session_id, events))

    async def events_after(self, session_id: str, after: int, *, limit: int = 500) -> Sequence[SessionEvent]:
        """A Core read (``_read``: on a SQLite file, on a reader thread): a subscriber's read of a session's
        events, done by many at once when submissions arrive together."""
        return await self._read(lambda conn: session_event_log.events_after(conn, session_id, after, limit))

    async def queued(self) -> Sequence[str]:
        rows = (
            select(SESSIONS.c.session_id)
            .where(SESSIONS.c.status == "queued", ALONE)
            .order_by(SESSIONS.c.created_at, SESSIONS.c.session_id)
        )
        async with self._transaction() as db:
            return list((await db.execute(rows)).scalars())

    async def queue_position(self, session_id: str) -> int | None:
        async with self._transaction() as db:
            position = int(await db.scalar(QUEUE_POSITION, {"target_session_id": session_id}) or 0)
        return position or None

    async def statuses(self, session_ids: Sequence[str]) -> dict[str, SessionStatus]:
        if not session_ids:
            return {}
        rows = select(SESSIONS.c.session_id, SESSIONS.c.status).where(SESSIONS.c.session_id.in_(list(session_ids)))
        async with self._transaction() as db:
            return {r.session_id: r.status for r in (await db.execute(rows)).all()}

    async def claims(self, session_ids: Sequence[str]) -> dict[str, Claim]:
        if not session_ids:
            return {}
        columns = (SESSIONS.c.session_id, SESSIONS.c.status, SESSIONS.c.owner, SESSIONS.c.resume_count)
        rows = select(*columns).where(SESSIONS.c.session_id.in_(list(session_ids)))
        async with self._transaction() as db:
            found = (await db.execute(rows)).all()
        return {r.session_id: Claim(r.status, r.owner == self.owner, r.resume_count) for r in found}

    async def find_idempotent(self, client_id: str, key: str, since: datetime) -> ResearchSession | None:
        newest = (
            select(SESSIONS.c.session_id)
            .where(SESSIONS.c.client_id == client_id, SESSIONS.c.idempotency_key == key, SESSIONS.c.created_at >= since)
            .order_by(SESSIONS.c.created_at.desc())
            .limit(1)
        )
        async with self._transaction() as db:
            found = await db.scalar(newest)
            return None if found is None else await load_session(db, found)


def claim_next_queued(
    conn: Connection,
    owner: str | None,
    started: Started | None,
    inserted: ResearchSession | None = None,
    *,
    alone: bool = False,
) -> ResearchSession | None:
    """The next queued session (``NEXT_QUEUED``), made ``running`` for ``owner`` with its ``started`` event (see
    ``IJobStore.claim_next``), read back; when it is ``inserted`` (stored by this transaction, never run), that
    session as it is now stored. ``alone``: ``inserted`` is the only queued session this transaction sees."""
    claimed = _claim_next_row(conn, owner, inserted, numbered=started is not None, alone=alone)
    if claimed is not None and started is not None:  # the claim has counted its event
        insert_events(conn, claimed.session_id, [started(claimed)], last=claimed.last_event_seq)
    return claimed


def _claim_next_row(
    conn: Connection, owner: str | None, inserted: ResearchSession | None, *, numbered: bool, alone: bool
) -> ResearchSession | None:
    """``numbered``: the claim counts one event in the row's ``last_event_seq`` (the caller appends it); ``alone``:
    the next is ``inserted`` (no need to look)."""
    for _ in range(10):  # another coordinator may take the next first: then the one after
        found = (inserted.session_id, None) if alone and inserted is not None else conn.execute(NEXT_QUEUED).first()
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
                row, retried_by = db.execute(sessions_with_experts().where(SessionRow.session_id == session_id)).one()
                return to_domain(row, retried_by)
    return None
