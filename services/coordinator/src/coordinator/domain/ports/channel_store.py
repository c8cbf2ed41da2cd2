"""Where channels and the outbox's deliveries are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any

from coordinator.domain.model.channel import Channel
from coordinator.domain.model.delivery import Delivery, DeliveryStatus


class IChannelStore(ABC):
    @abstractmethod
    async def create(self, channel: Channel) -> None: ...

    @abstractmethod
    async def get(self, channel_id: str) -> Channel | None: ...

    @abstractmethod
    async def page(self, client_id: str | None, *, offset: int, limit: int) -> tuple[list[Channel], int]: ...

    @abstractmethod
    async def delete(self, channel_id: str) -> None:
        """Deletes the channel; its deliveries not yet sent end ``failed`` (``channel deleted``)."""


class IDeliveryStore(ABC):
    @abstractmethod
    async def get(self, delivery_id: str) -> Delivery | None: ...

    @abstractmethod
    async def page(
        self, client_id: str | None, status: DeliveryStatus | None, *, offset: int, limit: int
    ) -> tuple[list[Delivery], int]:
        """Deliveries, newest first, and how many there are in all."""

    @abstractmethod
    async def claim_due(self, now: datetime, limit: int, lease_seconds: float) -> list[Delivery]:
        """Up to ``limit`` pending deliveries due at ``now``, each made due again ``lease_seconds`` later in the
        same transaction (a coordinator that dies while sending leaves it to be sent again then). Two claimers
        never get one delivery."""

    @abstractmethod
    async def compose(self, delivery_id: str, message: dict[str, Any]) -> None:
        """Keeps the message composed for the delivery's first attempt (every later attempt sends it)."""

    @abstractmethod
    async def delivered(self, delivery_id: str, status_code: int | None, now: datetime) -> None: ...

    @abstractmethod
    async def attempt_failed(
        self, delivery_id: str, error: str, status_code: int | None, next_attempt_at: datetime | None, now: datetime
    ) -> None:
        """Counts the failed attempt; due again at ``next_attempt_at``, or ``failed`` when None."""

    @abstractmethod
    async def retry(self, delivery_id: str, now: datetime) -> Delivery:
        """A ``failed`` delivery made ``pending`` and due now, its attempts counted afresh."""
