"""The outbox on the sessions database (``notification_deliveries``): written in the transaction that ends a
watchlist's batch (``queue_deliveries``), claimed with a lease by whichever coordinator polls first (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL; SQLite has one writer), so that a coordinator that dies mid-send leaves the delivery to
be sent again once the lease runs out."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.sql.expression import func, insert, select, update

from coordinator.domain.exceptions import DeliveryNotFailedError, DeliveryNotFoundError
from coordinator.domain.model.batch import Batch
from coordinator.domain.model.delivery import Delivery, DeliveryStatus
from coordinator.domain.ports.channel_store import IDeliveryStore
from coordinator.infrastructure.persistence.tables import ChannelRow, DeliveryRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore

DELIVERIES: Table = DeliveryRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table
CHANNELS: Table = ChannelRow.__table__  # type: ignore[assignment]


def queue_deliveries(conn: Connection, batch: Batch, now: datetime) -> None:
    """One pending delivery, due now, for each of the ended ``batch``'s channels that still exists and is its
    client's (in the caller's transaction: the one that ends the batch)."""
    if not batch.channels:
        return
    existing = conn.execute(
        select(CHANNELS.c.channel_id).where(
            CHANNELS.c.channel_id.in_(batch.channels), CHANNELS.c.client_id == batch.client_id
        )
    ).scalars()
    found = set(existing)
    rows = [
        {
            "delivery_id": str(uuid.uuid4()),
            "client_id": batch.client_id,
            "channel_id": channel_id,
            "batch_id": batch.batch_id,
            "watchlist_id": batch.watchlist_id,
            "status": "pending",
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
            "updated_at": now,
        }
        for channel_id in dict.fromkeys(batch.channels)
        if channel_id in found
    ]
    if rows:
        conn.execute(insert(DELIVERIES), rows)


class SqlAlchemyDeliveryStore(SqlAlchemyStore, IDeliveryStore):
    async def get(self, delivery_id: str) -> Delivery | None:
        def statements(conn: Connection) -> Delivery | None:
            row = conn.execute(select(DELIVERIES).where(DELIVERIES.c.delivery_id == delivery_id)).first()
            return None if row is None else _delivery_of(row._mapping)

        return await self._read(statements)

    async def page(
        self, client_id: str | None, status: DeliveryStatus | None, *, offset: int, limit: int
    ) -> tuple[list[Delivery], int]:
        where = [] if client_id is None else [DELIVERIES.c.client_id == client_id]
        if status is not None:
            where.append(DELIVERIES.c.status == status)
        query = (
            select(DELIVERIES)
            .where(*where)
            .order_by(DELIVERIES.c.created_at.desc(), DELIVERIES.c.delivery_id)
            .offset(offset)
            .limit(limit)
        )

        def statements(conn: Connection) -> tuple[list[Delivery], int]:
            total = conn.scalar(select(func.count()).select_from(DELIVERIES).where(*where)) or 0
            return [_delivery_of(r._mapping) for r in conn.execute(query).all()], int(total)

        return await self._read(statements)

    async def claim_due(self, now: datetime, limit: int, lease_seconds: float) -> list[Delivery]:
        def statements(conn: Connection) -> list[Delivery]:
            due = (
                select(DELIVERIES.c.delivery_id)
                .where(DELIVERIES.c.status == "pending", DELIVERIES.c.next_attempt_at <= now)
                .order_by(DELIVERIES.c.next_attempt_at)
                .limit(limit)
            )
            if conn.dialect.name == "postgresql":
                due = due.with_for_update(skip_locked=True)
            picked = list(conn.execute(due).scalars())
            if not picked:
                return []
            claimed = conn.execute(
                update(DELIVERIES)
                .where(
                    DELIVERIES.c.delivery_id.in_(picked),
                    DELIVERIES.c.status == "pending",
                    DELIVERIES.c.next_attempt_at <= now,
                )
                .values(next_attempt_at=now + timedelta(seconds=lease_seconds), updated_at=now)
                .returning(*DELIVERIES.c)
            ).all()
            return [_delivery_of(r._mapping) for r in claimed]

        return await self._write(statements)

    async def compose(self, delivery_id: str, message: dict[str, Any]) -> None:
        def statements(conn: Connection) -> None:
            conn.execute(
                update(DELIVERIES)
                .where(DELIVERIES.c.delivery_id == delivery_id, DELIVERIES.c.message.is_(None))
                .values(message=message)
            )

        await self._write(statements)

    async def delivered(self, delivery_id: str, status_code: int | None, now: datetime) -> None:
        def statements(conn: Connection) -> None:
            conn.execute(
                update(DELIVERIES)
                .where(DELIVERIES.c.delivery_id == delivery_id)
                .values(
                    status="delivered",
                    attempts=DELIVERIES.c.attempts + 1,
                    last_status_code=status_code,
                    last_error=None,
                    next_attempt_at=None,
                    delivered_at=now,
                    updated_at=now,
                )
            )

        await self._write(statements)

    async def attempt_failed(
        self, delivery_id: str, error: str, status_code: int | None, next_attempt_at: datetime | None, now: datetime
    ) -> None:
        def statements(conn: Connection) -> None:
            conn.execute(
                update(DELIVERIES)
                .where(DELIVERIES.c.delivery_id == delivery_id, DELIVERIES.c.status == "pending")
                .values(
                    status="pending" if next_attempt_at is not None else "failed",
                    attempts=DELIVERIES.c.attempts + 1,
                    last_error=error[:2000],
                    last_status_code=status_code,
                    next_attempt_at=next_attempt_at,
                    updated_at=now,
                )
            )

        await self._write(statements)

    async def retry(self, delivery_id: str, now: datetime) -> Delivery:
        def statements(conn: Connection) -> Delivery:
            row = conn.execute(
                update(DELIVERIES)
                .where(DELIVERIES.c.delivery_id == delivery_id, DELIVERIES.c.status == "failed")
                .values(status="pending", attempts=0, next_attempt_at=now, updated_at=now)
                .returning(*DELIVERIES.c)
            ).first()
            if row is not None:
                return _delivery_of(row._mapping)
            current = conn.execute(select(DELIVERIES.c.status).where(DELIVERIES.c.delivery_id == delivery_id)).first()
            if current is None:
                raise DeliveryNotFoundError(delivery_id)
            raise DeliveryNotFailedError(delivery_id, str(current[0]))

        return await self._write(statements)


def fail_pending_of_channel(conn: Connection, channel_id: str, now: datetime) -> None:
    """Ends the channel's deliveries not yet sent ``failed`` (it is being deleted), in the caller's transaction."""
    conn.execute(
        update(DELIVERIES)
        .where(DELIVERIES.c.channel_id == channel_id, DELIVERIES.c.status == "pending")
        .values(status="failed", last_error="channel deleted", next_attempt_at=None, updated_at=now)
    )


def _delivery_of(row: Any) -> Delivery:
    return Delivery(
        delivery_id=row["delivery_id"],
        channel_id=row["channel_id"],
        client_id=row["client_id"],
        batch_id=row["batch_id"],
        watchlist_id=row["watchlist_id"],
        status=row["status"],
        attempts=row["attempts"],
        next_attempt_at=row["next_attempt_at"],
        last_error=row["last_error"],
        last_status_code=row["last_status_code"],
        message=row["message"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        delivered_at=row["delivered_at"],
    )
