"""The stored sessions read back: one session, a page of the history, the verdicts the scorecard scores, through the
async engine and the ORM (a session is loaded with its expert rows)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time

from sqlalchemy import ColumnElement
from sqlalchemy.orm import aliased
from sqlalchemy.sql.expression import and_, exists, func, or_, select

from coordinator.domain.model.outcome import TECHNICAL, StoredVerdict, iso_day, technical_option_date
from coordinator.domain.model.session import ResearchSession, SessionStatus
from coordinator.domain.ports.session_repository import VerdictFilter
from coordinator.infrastructure.persistence.session_rows import (
    load_session,
    sessions_with_experts,
    stored_day,
    to_domain,
)
from coordinator.infrastructure.persistence.tables import ExpertRow, SessionRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore


class SqlAlchemySessionHistory(SqlAlchemyStore):
    async def get(self, session_id: str, client_id: str | None = None) -> ResearchSession | None:
        async with self._transaction() as db:
            return await load_session(db, session_id, client_id)

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
            sessions_with_experts()
            .where(*filters)
            .order_by(SessionRow.created_at.desc(), SessionRow.session_id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self._transaction() as db:
            total = await db.scalar(select(func.count()).select_from(SessionRow).where(*filters))
            rows = (await db.execute(page)).all()
            return [to_domain(row, retried_by) for row, retried_by in rows], int(total or 0)

    async def list_verdicts(self, where: VerdictFilter, *, limit: int) -> tuple[Sequence[StoredVerdict], int]:
        """Only the columns an outcome needs (not the experts' data: the technical analyst's ``as_of`` is read
        out of its JSON), newest first (ties broken by id)."""
        if limit < 1:
            raise ValueError("limit must be >= 1")
        technical = aliased(ExpertRow)
        as_of = technical.data["as_of"].as_string()
        filters = verdict_filters(where)
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
            StoredVerdict(
                session_id, symbol, verdict, stored_day(day), iso_day(as_of), technical_option_date(options), at
            )
            for session_id, symbol, verdict, day, options, at, as_of in found
        ]
        return verdicts, int(total or 0)

    async def ping(self) -> None:
        async with self._transaction() as db:
            await db.execute(select(SessionRow.session_id).limit(1))


def verdict_filters(where: VerdictFilter) -> list[ColumnElement[bool]]:
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
