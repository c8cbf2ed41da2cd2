"""``ISessionRepository`` (and ``IJobStore``, ``IUsageLedger``) on SQLAlchemy 2: every write is one short
transaction, committed before the method returns.

One class over the modules that store each part: ``job_queue`` (new sessions, claims, ends, events appended and
read: the job store), ``session_history`` (sessions read back), ``usage_ledger``; this module writes a running
session's stages (each with its events, in one transaction), final statuses, and purges. The row mapping is
``session_rows``, the events' numbering ``session_event_log``. Writes are Core statements run by
``write_transactions``; reads go through the async engine and the ORM. The coordinators' instance rows:
``instances``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, Update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.expression import bindparam, delete, select, update

from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.events import NewEvent
from coordinator.domain.model.session import ExpertOutcome, ResearchSession, SessionStatus, StageOutcome, utcnow
from coordinator.domain.ports.session_repository import ISessionRepository
from coordinator.infrastructure.persistence.job_queue import SqlAlchemyJobQueue
from coordinator.infrastructure.persistence.session_event_log import NUMBERED, insert_events
from coordinator.infrastructure.persistence.session_history import SqlAlchemySessionHistory
from coordinator.infrastructure.persistence.session_rows import (
    EVENTS,
    EXPERTS,
    SESSIONS,
    UNFINISHED,
    expert_upsert,
    expert_values,
    stage_values,
)
from coordinator.infrastructure.persistence.tables import CoordinatorInstanceRow
from coordinator.infrastructure.persistence.usage_ledger import SqlAlchemyUsageLedger
from coordinator.infrastructure.persistence.write_transactions import Statements, WriteTransactions

INSTANCES: Table = CoordinatorInstanceRow.__table__  # type: ignore[assignment]  # a declarative class's table


class SqlAlchemySessionRepository(
    SqlAlchemyJobQueue, SqlAlchemySessionHistory, SqlAlchemyUsageLedger, ISessionRepository
):
    """``owner``: the coordinator instance whose sessions this repository creates (``instances.InstanceLease``),
    stored with each."""

    def __init__(self, engine: AsyncEngine, owner: str | None = None, writes: WriteTransactions | None = None) -> None:
        super().__init__(engine, writes)
        self.owner = owner
        self._upsert_expert = expert_upsert(engine.dialect.name)
        # Sessions whose final status could not be written (the store was down): written when it answers
        # again (``write_unwritten_finishes``, called by the instance lease), so none stays ``running``.
        self._unwritten_finishes = {}

    async def create(self, session: ResearchSession) -> None:
        await self.store_new(session, queued=False)

    async def record_expert(
        self, session_id: str, expert: str, outcome: ExpertOutcome, events: Sequence[NewEvent] = ()
    ) -> None:
        values = expert_values(session_id, expert, outcome)

        def statements(conn: Connection) -> None:
            _touch(conn, session_id, events)
            conn.execute(self._upsert_expert, values)

        await self._write(statements)

    async def record_debate(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        await self._write(_touching(session_id, events, **stage_values("debate", "debate_outcome", stage)))

    async def record_verdict(self, session_id: str, stage: StageOutcome, events: Sequence[NewEvent] = ()) -> None:
        await self._write(_touching(session_id, events, **stage_values("judge", "verdict", stage)))

    async def finish(self, session_id: str, status: SessionStatus) -> None:
        """A final status is final: a session already ``interrupted`` (by a replica that took this one for
        gone) keeps that status. When the store is unavailable the status is kept to be written later."""
        await self._write_final(session_id, _finishing(session_id, status, utcnow()))

    @property
    def holds_unwritten_finishes(self) -> bool:
        return bool(self._unwritten_finishes)

    async def write_unwritten_finishes(self) -> int:
        """Write the final statuses (with their terminal events) the store refused earlier; returns how many."""
        unwritten = list(self._unwritten_finishes.items())
        for session_id, statements in unwritten:
            await self._write(statements)
            self._unwritten_finishes.pop(session_id, None)
        return len(unwritten)

    async def ping(self) -> None:
        """A read and a write the store must accept (/readyz): a database that answers reads but refuses writes
        (read-only, locked by another process) is not ready. The write sets this instance's heartbeat to itself."""
        await super().ping()
        owner = self.owner or ""
        probe = update(INSTANCES).where(INSTANCES.c.instance_id == owner).values(heartbeat_at=INSTANCES.c.heartbeat_at)
        await self._write(lambda conn: conn.execute(probe))

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
    return statement.values(NUMBERED).returning(SESSIONS.c.last_event_seq) if numbered else statement


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
    insert_events(conn, session_id, events, last=int(numbered[0]))


def _touching(session_id: str, events: Sequence[NewEvent], **values: Any) -> Statements[None]:
    def statements(conn: Connection) -> None:
        _touch(conn, session_id, events, **values)

    return statements


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
