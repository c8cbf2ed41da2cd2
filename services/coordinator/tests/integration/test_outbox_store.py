"""The outbox on SQLite and PostgreSQL: a delivery claimed is leased (not claimed again until the lease ends, then
claimed again: a sender that died is replaced), two claimers at once never get one delivery, failed attempts count
until ``failed``, and only a failed one can be retried."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import date, timedelta

import pytest

from coordinator.domain.exceptions import DeliveryNotFailedError
from coordinator.domain.model.batch import Batch
from coordinator.domain.model.channel import Channel
from coordinator.domain.model.session import utcnow
from coordinator.infrastructure.persistence.batch_store import SqlAlchemyBatchStore
from coordinator.infrastructure.persistence.channel_store import SqlAlchemyChannelStore
from coordinator.infrastructure.persistence.delivery_store import SqlAlchemyDeliveryStore, queue_deliveries
from coordinator.infrastructure.persistence.store import open_session_store

LEASE = 60.0


async def outbox(
    url: str, deliveries: int
) -> tuple[SqlAlchemyDeliveryStore, SqlAlchemyDeliveryStore, Callable[[], Awaitable[None]]]:
    """Two delivery stores (two coordinators' engines) on ``url`` with ``deliveries`` pending, due now."""
    first, close_first = await open_session_store(url)
    second, close_second = await open_session_store(url)
    channels = SqlAlchemyChannelStore(first.engine, first.writes)
    ids = [f"channel-{i}" for i in range(deliveries)]
    for channel_id in ids:
        await channels.create(Channel(channel_id, "webhook", "https://example.com/hook", "whsec_x"))
    batch = Batch("batch-1", date(2025, 9, 30), ["technical_analyst"], 1, channels=ids, status="completed")
    batches = SqlAlchemyBatchStore.sharing(first)
    await batches.create(batch, [])
    await first.writes.run(lambda conn: queue_deliveries(conn, batch, utcnow()))

    async def close() -> None:
        await close_first()
        await close_second()

    return SqlAlchemyDeliveryStore(first.engine, first.writes), SqlAlchemyDeliveryStore(second.engine), close


async def test_a_claimed_delivery_is_leased_then_claimed_again_when_its_sender_is_gone(fresh_url: str) -> None:
    store, _, close = await outbox(fresh_url, 1)
    try:
        now = utcnow()
        claimed = await store.claim_due(now, 10, LEASE)
        during = await store.claim_due(now + timedelta(seconds=LEASE - 1), 10, LEASE)
        after = await store.claim_due(now + timedelta(seconds=LEASE + 1), 10, LEASE)
    finally:
        await close()

    assert len(claimed) == 1
    assert during == []
    assert [d.delivery_id for d in after] == [claimed[0].delivery_id]


async def test_two_coordinators_claiming_at_once_never_share_a_delivery(fresh_url: str) -> None:
    first, second, close = await outbox(fresh_url, 20)
    try:
        now = utcnow()
        rounds = await asyncio.gather(*(s.claim_due(now, 3, LEASE) for s in (first, second) * 5))
    finally:
        await close()

    ids = [d.delivery_id for claimed in rounds for d in claimed]
    assert len(ids) == len(set(ids))
    assert len(ids) <= 20


async def test_attempts_count_until_failed_and_only_a_failed_one_is_retried(fresh_url: str) -> None:
    store, _, close = await outbox(fresh_url, 1)
    try:
        now = utcnow()
        (delivery,) = await store.claim_due(now, 1, LEASE)
        await store.attempt_failed(delivery.delivery_id, "HTTP 503", 503, now + timedelta(seconds=5), now)
        pending = await store.get(delivery.delivery_id)
        with pytest.raises(DeliveryNotFailedError):
            await store.retry(delivery.delivery_id, now)
        await store.attempt_failed(delivery.delivery_id, "HTTP 503", 503, None, now)
        failed = await store.get(delivery.delivery_id)
        retried = await store.retry(delivery.delivery_id, now)
        listed, total = await store.page(None, "pending", offset=0, limit=10)
    finally:
        await close()

    assert pending is not None
    assert (pending.status, pending.attempts) == ("pending", 1)
    assert failed is not None
    assert (failed.status, failed.attempts, failed.last_status_code) == ("failed", 2, 503)
    assert (retried.status, retried.attempts) == ("pending", 0)
    assert [d.delivery_id for d in listed] == [delivery.delivery_id]
    assert total == 1
