"""The outbox's use cases and its sender.

``DeliveryService``: a client's deliveries (by status), one delivery, and a failed one retried by hand.
``DeliveryDispatcher``: every ``poll_seconds``, claims the deliveries that are due (each with a lease, so a
coordinator that dies mid-send leaves it to be sent again), composes a watchlist run's message on the first attempt
(kept, so that every attempt sends the same message under the same id), sends it, and records the outcome: delivered,
due again after the retry policy's delay (the receiver's ``Retry-After`` when longer), or ``failed`` when the
attempts are spent or the receiver refused it for good (e.g. 404: the target is wrong).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from coordinator.application.services.notification_composer import NotificationComposer
from coordinator.domain.exceptions import DeliveryNotFoundError
from coordinator.domain.model.delivery import Delivery, DeliveryStatus, RetryPolicy
from coordinator.domain.model.notification import Notification
from coordinator.domain.model.session import utcnow
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.batch_store import IBatchStore
from coordinator.domain.ports.channel_store import IChannelStore, IDeliveryStore
from coordinator.domain.ports.notification_sender import INotificationSender, SendFailedError
from shared_contracts.redaction import error_text

log = logging.getLogger(__name__)


class DeliveryService:
    def __init__(self, store: IDeliveryStore, dispatcher: DeliveryDispatcher | None = None) -> None:
        self._store = store
        self._dispatcher = dispatcher

    async def page(
        self, viewer: Viewer, status: DeliveryStatus | None, *, offset: int, limit: int
    ) -> tuple[list[Delivery], int]:
        return await self._store.page(viewer.only_client, status, offset=offset, limit=limit)

    async def get(self, delivery_id: str, viewer: Viewer) -> Delivery:
        delivery = await self._store.get(delivery_id)
        if delivery is None or not (viewer.sees_all or delivery.client_id == viewer.client_id):
            raise DeliveryNotFoundError(delivery_id)
        return delivery

    async def retry(self, delivery_id: str, viewer: Viewer) -> Delivery:
        """A failed delivery, pending again with its attempts counted afresh, sent at the next poll; 409
        ``delivery_not_failed`` when it is not failed."""
        await self.get(delivery_id, viewer)
        delivery = await self._store.retry(delivery_id, utcnow())
        if self._dispatcher is not None:
            self._dispatcher.wake()
        return delivery


class DeliveryDispatcher:
    def __init__(
        self,
        deliveries: IDeliveryStore,
        channels: IChannelStore,
        batches: IBatchStore,
        composer: NotificationComposer,
        sender: INotificationSender,
        *,
        policy: RetryPolicy,
        poll_seconds: float = 2.0,
        send_timeout_seconds: float = 30.0,
        claim_size: int = 20,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._deliveries = deliveries
        self._channels = channels
        self._batches = batches
        self._composer = composer
        self._sender = sender
        self.policy = policy
        self._poll_seconds = poll_seconds
        self._send_timeout = send_timeout_seconds
        self._claim_size = claim_size
        self._now = now
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def lease_seconds(self) -> float:
        """How long a claimed delivery is left to its sender before another coordinator may send it."""
        return 2 * self._send_timeout + 30.0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._poll_forever(), name="outbox-deliveries")

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def send_due(self) -> int:
        """Sends every delivery due now (in rounds of ``claim_size``); how many were attempted."""
        attempted = 0
        while claimed := await self._deliveries.claim_due(self._now(), self._claim_size, self.lease_seconds):
            await asyncio.gather(*(self._attempt(d) for d in claimed))
            attempted += len(claimed)
        return attempted

    async def _attempt(self, delivery: Delivery) -> None:
        try:
            channel = await self._channels.get(delivery.channel_id)
            if channel is None:
                await self._failed(delivery, SendFailedError("channel deleted", permanent=True))
                return
            message = await self._message(delivery, channel.language)
            async with asyncio.timeout(self._send_timeout):
                status = await self._sender.send(channel, message, message_id=delivery.delivery_id, sent_at=self._now())
        except SendFailedError as exc:
            await self._failed(delivery, exc)
            return
        except TimeoutError:
            await self._failed(delivery, SendFailedError(f"no answer within {self._send_timeout:g} s"))
            return
        except Exception as exc:  # composing failed (the store or research down): retried like a send
            await self._failed(delivery, SendFailedError(error_text(exc)))
            return
        await self._deliveries.delivered(delivery.delivery_id, status, self._now())
        log.info("delivery_sent %s (%s, attempt %d)", delivery.delivery_id, channel.kind, delivery.attempts + 1)

    async def _message(self, delivery: Delivery, language: str) -> Notification:
        if delivery.message is not None:
            return Notification.from_json(delivery.message)
        batch = await self._batches.get(delivery.batch_id) if delivery.batch_id else None
        if batch is None:
            raise SendFailedError("its batch no longer exists", permanent=True)
        message = await self._composer.watchlist_run(batch, language)
        await self._deliveries.compose(delivery.delivery_id, message.to_json())
        return message

    async def _failed(self, delivery: Delivery, exc: SendFailedError) -> None:
        attempts = delivery.attempts + 1
        now = self._now()
        last = exc.permanent or attempts >= self.policy.max_attempts
        next_at = None if last else now + timedelta(seconds=self.policy.delay(attempts, exc.retry_after))
        await self._deliveries.attempt_failed(delivery.delivery_id, str(exc), exc.status_code, next_at, now)
        log.warning(
            "delivery_attempt_failed %s attempt %d: %s (%s)",
            delivery.delivery_id,
            attempts,
            exc,
            "failed" if next_at is None else f"again at {next_at.isoformat()}",
        )

    async def _poll_forever(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.send_due()
            except Exception as exc:  # the store may be briefly down: the next poll sends what is due
                log.warning("outbox_poll_failed: %s", error_text(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._poll_seconds):
                    await self._wake.wait()
