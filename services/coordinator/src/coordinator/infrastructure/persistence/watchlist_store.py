"""``IWatchlistStore`` on the sessions database: ``watchlists``, ``watchlist_schedules`` and ``schedule_runs``.

A slot fires once across coordinators because ``schedule_runs``' key is (schedule, slot): ``fire`` inserts that
row with ``ON CONFLICT DO NOTHING`` and, only when it was inserted, the slot's batch and items — in one transaction,
so a slot either fired with its batch or did not fire at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.expression import delete, func, insert, select, update

from coordinator.domain.exceptions import WatchlistNameTakenError
from coordinator.domain.model.batch import Batch
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.model.watchlist import Schedule, ScheduleRun, Watchlist
from coordinator.domain.ports.watchlist_store import IWatchlistStore
from coordinator.infrastructure.persistence.batch_store import BATCHES, insert_batch
from coordinator.infrastructure.persistence.tables import ScheduleRow, ScheduleRunRow, WatchlistRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore

WATCHLISTS: Table = WatchlistRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table
SCHEDULES: Table = ScheduleRow.__table__  # type: ignore[assignment]
RUNS: Table = ScheduleRunRow.__table__  # type: ignore[assignment]


class SqlAlchemyWatchlistStore(SqlAlchemyStore, IWatchlistStore):
    async def create(self, watchlist: Watchlist) -> None:
        def statements(conn: Connection) -> None:
            _name_free(conn, watchlist)
            conn.execute(insert(WATCHLISTS), _watchlist_values(watchlist))

        await self._named_write(statements, watchlist.name)

    async def get(self, watchlist_id: str) -> Watchlist | None:
        return await self._one(WATCHLISTS.c.watchlist_id == watchlist_id)

    async def find(self, client_id: str, name: str) -> Watchlist | None:
        return await self._one(WATCHLISTS.c.client_id == client_id, WATCHLISTS.c.name == name)

    async def page(self, client_id: str | None, *, offset: int, limit: int) -> tuple[list[Watchlist], int]:
        where = [] if client_id is None else [WATCHLISTS.c.client_id == client_id]
        query = (
            select(WATCHLISTS)
            .where(*where)
            .order_by(WATCHLISTS.c.name, WATCHLISTS.c.watchlist_id)
            .offset(offset)
            .limit(limit)
        )

        def statements(conn: Connection) -> tuple[list[Watchlist], int]:
            total = conn.scalar(select(func.count()).select_from(WATCHLISTS).where(*where)) or 0
            return [_watchlist_of(r._mapping) for r in conn.execute(query).all()], int(total)

        return await self._read(statements)

    async def update(self, watchlist: Watchlist) -> None:
        values = _watchlist_values(watchlist)
        values.pop("created_at")

        def statements(conn: Connection) -> None:
            _name_free(conn, watchlist)
            conn.execute(update(WATCHLISTS).where(WATCHLISTS.c.watchlist_id == watchlist.watchlist_id).values(values))

        await self._named_write(statements, watchlist.name)

    async def delete(self, watchlist_id: str) -> None:
        def statements(conn: Connection) -> None:
            schedules = select(SCHEDULES.c.schedule_id).where(SCHEDULES.c.watchlist_id == watchlist_id)
            conn.execute(delete(RUNS).where(RUNS.c.schedule_id.in_(schedules)))
            conn.execute(delete(SCHEDULES).where(SCHEDULES.c.watchlist_id == watchlist_id))
            conn.execute(delete(WATCHLISTS).where(WATCHLISTS.c.watchlist_id == watchlist_id))

        await self._write(statements)

    async def add_schedule(self, schedule: Schedule) -> None:
        values = {
            "schedule_id": schedule.schedule_id,
            "watchlist_id": schedule.watchlist_id,
            "client_id": schedule.client_id,
            "cron": schedule.cron,
            "timezone": schedule.timezone,
            "trading_days_only": schedule.trading_days_only,
            "calendar": schedule.calendar,
            "channels": list(schedule.channels),
            "created_at": schedule.created_at,
        }

        def statements(conn: Connection) -> None:
            conn.execute(insert(SCHEDULES), values)

        await self._write(statements)

    async def schedule(self, schedule_id: str) -> Schedule | None:
        def statements(conn: Connection) -> Schedule | None:
            row = conn.execute(select(SCHEDULES).where(SCHEDULES.c.schedule_id == schedule_id)).first()
            return None if row is None else _schedule_of(row._mapping)

        return await self._read(statements)

    async def schedules(self, watchlist_id: str | None = None) -> list[Schedule]:
        where = [] if watchlist_id is None else [SCHEDULES.c.watchlist_id == watchlist_id]
        query = select(SCHEDULES).where(*where).order_by(SCHEDULES.c.created_at, SCHEDULES.c.schedule_id)

        def statements(conn: Connection) -> list[Schedule]:
            return [_schedule_of(r._mapping) for r in conn.execute(query).all()]

        return await self._read(statements)

    async def delete_schedule(self, schedule_id: str) -> None:
        def statements(conn: Connection) -> None:
            conn.execute(delete(RUNS).where(RUNS.c.schedule_id == schedule_id))
            conn.execute(delete(SCHEDULES).where(SCHEDULES.c.schedule_id == schedule_id))

        await self._write(statements)

    async def runs(self, schedule_id: str, limit: int) -> list[tuple[ScheduleRun, str | None]]:
        query = (
            select(RUNS, BATCHES.c.status.label("batch_status"))
            .outerjoin(BATCHES, BATCHES.c.batch_id == RUNS.c.batch_id)
            .where(RUNS.c.schedule_id == schedule_id)
            .order_by(RUNS.c.slot_at.desc())
            .limit(limit)
        )

        def statements(conn: Connection) -> list[tuple[ScheduleRun, str | None]]:
            return [(_run_of(r._mapping), r.batch_status) for r in conn.execute(query).all()]

        return await self._read(statements)

    async def fire(self, run: ScheduleRun, batch: Batch | None, sessions: Sequence[ResearchSession]) -> bool:
        values = {
            "schedule_id": run.schedule_id,
            "slot_at": run.slot,
            "fired_at": run.fired_at,
            "batch_id": run.batch_id,
            "error": run.error,
        }

        def statements(conn: Connection) -> bool:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            claimed = conn.execute(
                dialect.insert(RUNS).values(values).on_conflict_do_nothing().returning(RUNS.c.schedule_id)
            ).first()
            if claimed is None:
                return False
            if batch is not None:
                insert_batch(conn, batch, sessions)
            return True

        return await self._write(statements)

    async def fired(self, schedule_id: str, slot: datetime) -> bool:
        def statements(conn: Connection) -> bool:
            query = select(RUNS.c.schedule_id).where(RUNS.c.schedule_id == schedule_id, RUNS.c.slot_at == slot)
            return conn.execute(query).first() is not None

        return await self._read(statements)

    async def _one(self, *where: Any) -> Watchlist | None:
        def statements(conn: Connection) -> Watchlist | None:
            row = conn.execute(select(WATCHLISTS).where(*where)).first()
            return None if row is None else _watchlist_of(row._mapping)

        return await self._read(statements)

    async def _named_write(self, statements: Any, name: str) -> None:
        """A write that may find the name taken by a concurrent one (the unique constraint's IntegrityError)."""
        try:
            await self._write(statements)
        except IntegrityError:
            raise WatchlistNameTakenError(name) from None


def _name_free(conn: Connection, watchlist: Watchlist) -> None:
    taken = conn.execute(
        select(WATCHLISTS.c.watchlist_id).where(
            WATCHLISTS.c.client_id == watchlist.client_id,
            WATCHLISTS.c.name == watchlist.name,
            WATCHLISTS.c.watchlist_id != watchlist.watchlist_id,
        )
    ).first()
    if taken is not None:
        raise WatchlistNameTakenError(watchlist.name)


def _watchlist_values(watchlist: Watchlist) -> dict[str, Any]:
    return {
        "watchlist_id": watchlist.watchlist_id,
        "client_id": watchlist.client_id,
        "name": watchlist.name,
        "symbols": list(watchlist.symbols),
        "created_at": watchlist.created_at,
        "updated_at": watchlist.updated_at,
    }


def _watchlist_of(row: Any) -> Watchlist:
    return Watchlist(
        watchlist_id=row["watchlist_id"],
        name=row["name"],
        symbols=list(row["symbols"]),
        client_id=row["client_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _schedule_of(row: Any) -> Schedule:
    return Schedule(
        schedule_id=row["schedule_id"],
        watchlist_id=row["watchlist_id"],
        cron=row["cron"],
        timezone=row["timezone"],
        trading_days_only=bool(row["trading_days_only"]),
        calendar=row["calendar"],
        channels=list(row["channels"]),
        client_id=row["client_id"],
        created_at=row["created_at"],
    )


def _run_of(row: Any) -> ScheduleRun:
    return ScheduleRun(
        schedule_id=row["schedule_id"],
        slot=row["slot_at"],
        fired_at=row["fired_at"],
        batch_id=row["batch_id"],
        error=row["error"],
    )
