"""A session's events (``research_session_events``): numbered per session from the session row's counter
(``last_event_seq``, advanced by the statement that updates the row, whose lock also orders concurrent appends),
inserted in the caller's transaction (with a notification to the other coordinators), and read in order."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, Insert
from sqlalchemy.sql.expression import bindparam, insert, select, update

from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.events import NewEvent, SessionEvent
from coordinator.domain.model.session import utcnow
from coordinator.infrastructure.persistence.event_notifications import notify_events
from coordinator.infrastructure.persistence.session_rows import EVENTS, SESSIONS

INSERT_EVENTS: Insert = insert(EVENTS)
NUMBERED = {"last_event_seq": SESSIONS.c.last_event_seq + bindparam("added")}
"""What a statement that updates a session row and appends ``added`` events to it also sets (it returns the
new last number)."""
BUMP_EVENT_SEQ = (
    update(SESSIONS).where(SESSIONS.c.session_id == bindparam("target_session_id")).values(NUMBERED)
).returning(SESSIONS.c.last_event_seq)
LAST_EVENT_NUMBER = 2**63 - 1
"""The largest number a BIGINT column holds: a position after it is after every event."""
EVENTS_AFTER = (
    select(EVENTS)
    .where(EVENTS.c.session_id == bindparam("target_session_id"), EVENTS.c.seq > bindparam("after"))
    .order_by(EVENTS.c.seq)
    .limit(bindparam("most"))
)


def insert_events(conn: Connection, session_id: str, events: Sequence[NewEvent], *, last: int) -> None:
    """Insert ``events``, numbered up to ``last`` (the session row's counter, already advanced by them)."""
    now = utcnow()
    first = last - len(events) + 1
    rows = [
        {"session_id": session_id, "seq": first + i, "type": e.type, "data": e.data, "created_at": now}
        for i, e in enumerate(events)
    ]
    conn.execute(INSERT_EVENTS, rows)
    notify_events(conn, session_id)


def append_events(conn: Connection, session_id: str, events: Sequence[NewEvent]) -> int:
    """Number ``events`` after the session's last and insert them; returns the last number. Raises
    ``SessionNotFoundError`` for an unknown id."""
    if not events:
        return int(conn.scalar(select(SESSIONS.c.last_event_seq).where(SESSIONS.c.session_id == session_id)) or 0)
    bumped = conn.execute(BUMP_EVENT_SEQ, {"target_session_id": session_id, "added": len(events)}).first()
    if bumped is None:
        raise SessionNotFoundError(session_id)
    last = int(bumped[0])
    insert_events(conn, session_id, events, last=last)
    return last


def events_after(conn: Connection, session_id: str, after: int, limit: int) -> list[SessionEvent]:
    parameters = {"target_session_id": session_id, "after": min(after, LAST_EVENT_NUMBER), "most": limit}
    found = conn.execute(EVENTS_AFTER, parameters).all()
    return [SessionEvent(r.session_id, r.seq, r.type, r.data, r.created_at) for r in found]
