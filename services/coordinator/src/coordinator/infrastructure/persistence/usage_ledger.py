"""``IUsageLedger`` on SQLAlchemy 2 (``llm_usage_records``): a session's records replace its earlier ones in one
transaction; the totals are one ``GROUP BY`` of client, day and model."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from sqlalchemy import Connection, Table
from sqlalchemy.sql.expression import delete, func, insert, select, tuple_

from coordinator.domain.ports.usage_ledger import IUsageLedger, UsageRecord, UsageTotal
from coordinator.infrastructure.persistence.tables import UsageRecordRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore
from shared_contracts.usage import LLMUsage

USAGE: Table = UsageRecordRow.__table__  # type: ignore[assignment]  # a declarative class's table is a Table


class SqlAlchemyUsageLedger(SqlAlchemyStore, IUsageLedger):
    async def record_usage(self, records: Sequence[UsageRecord]) -> None:
        rows = [
            {
                "session_id": r.session_id,
                "stage": r.stage,
                "client_id": r.client_id,
                "day": r.day.isoformat(),
                "model": r.usage.model or "",
                "llm_calls": r.usage.llm_calls,
                "input_tokens": r.usage.input_tokens,
                "output_tokens": r.usage.output_tokens,
                "estimated": r.usage.estimated,
            }
            for r in records
        ]
        if not rows:
            return

        def statements(conn: Connection) -> None:
            keys = [(row["session_id"], row["stage"]) for row in rows]
            conn.execute(delete(USAGE).where(tuple_(USAGE.c.session_id, USAGE.c.stage).in_(keys)))
            conn.execute(insert(USAGE), rows)

        await self._write(statements)

    async def usage_totals(self, *, client_id: str | None, start: date, end: date) -> list[UsageTotal]:
        c = USAGE.c
        query = (
            select(
                c.client_id,
                c.day,
                c.model,
                func.sum(c.llm_calls),
                func.sum(c.input_tokens),
                func.sum(c.output_tokens),
                func.max(func.cast(c.estimated, USAGE.c.llm_calls.type)),
            )
            .where(c.day >= start.isoformat(), c.day <= end.isoformat())
            .group_by(c.client_id, c.day, c.model)
            .order_by(c.day, c.client_id, c.model)
        )
        if client_id is not None:
            query = query.where(c.client_id == client_id)
        async with self._transaction() as db:
            found = (await db.execute(query)).all()
        return [
            UsageTotal(
                client_id=client,
                day=date.fromisoformat(day),
                model=model,
                usage=LLMUsage(
                    llm_calls=int(calls),
                    input_tokens=int(given),
                    output_tokens=int(taken),
                    estimated=bool(estimated),
                    model=model or None,
                ),
            )
            for client, day, model, calls, given, taken, estimated in found
        ]
