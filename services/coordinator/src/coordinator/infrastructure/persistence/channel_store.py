"""``IChannelStore`` on the sessions database (``notification_channels``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.sql.expression import delete, func, insert, select

from coordinator.domain.model.channel import Channel
from coordinator.domain.model.session import utcnow
from coordinator.domain.ports.channel_store import IChannelStore
from coordinator.infrastructure.persistence.delivery_store import CHANNELS, fail_pending_of_channel
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore


class SqlAlchemyChannelStore(SqlAlchemyStore, IChannelStore):
    async def create(self, channel: Channel) -> None:
        values = {
            "channel_id": channel.channel_id,
            "client_id": channel.client_id,
            "kind": channel.kind,
            "target": channel.target,
            "secret": channel.secret,
            "name": channel.name,
            "language": channel.language,
            "created_at": channel.created_at,
        }

        def statements(conn: Connection) -> None:
            conn.execute(insert(CHANNELS), values)

        await self._write(statements)

    async def get(self, channel_id: str) -> Channel | None:
        def statements(conn: Connection) -> Channel | None:
            row = conn.execute(select(CHANNELS).where(CHANNELS.c.channel_id == channel_id)).first()
            return None if row is None else _channel_of(row._mapping)

        return await self._read(statements)

    async def page(self, client_id: str | None, *, offset: int, limit: int) -> tuple[list[Channel], int]:
        where = [] if client_id is None else [CHANNELS.c.client_id == client_id]
        query = (
            select(CHANNELS)
            .where(*where)
            .order_by(CHANNELS.c.created_at, CHANNELS.c.channel_id)
            .offset(offset)
            .limit(limit)
        )

        def statements(conn: Connection) -> tuple[list[Channel], int]:
            total = conn.scalar(select(func.count()).select_from(CHANNELS).where(*where)) or 0
            return [_channel_of(r._mapping) for r in conn.execute(query).all()], int(total)

        return await self._read(statements)

    async def delete(self, channel_id: str) -> None:
        def statements(conn: Connection) -> None:
            fail_pending_of_channel(conn, channel_id, utcnow())
            conn.execute(delete(CHANNELS).where(CHANNELS.c.channel_id == channel_id))

        await self._write(statements)


def _channel_of(row: Any) -> Channel:
    return Channel(
        channel_id=row["channel_id"],
        kind=row["kind"],
        target=row["target"],
        secret=row["secret"],
        name=row["name"],
        language=row["language"],
        client_id=row["client_id"],
        created_at=row["created_at"],
    )
