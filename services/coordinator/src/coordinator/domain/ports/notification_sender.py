"""Sends one notification to one channel, in that channel's own format."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from coordinator.domain.model.channel import Channel
from coordinator.domain.model.notification import Notification


class SendFailedError(Exception):
    """The channel did not acknowledge the message. ``status_code``: the receiver's HTTP status (None: no answer,
    or an SMTP failure); ``retry_after``: seconds the receiver asked to wait; ``permanent``: another attempt cannot
    succeed (e.g. 400, 401, 403, 404: the target or its key is wrong). The message never holds a secret or a
    keyed URL."""

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after: float | None = None, permanent: bool = False
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after
        self.permanent = permanent


class INotificationSender(ABC):
    @abstractmethod
    async def send(
        self, channel: Channel, notification: Notification, *, message_id: str, sent_at: datetime
    ) -> int | None:
        """Sends ``notification`` to ``channel``; returns the receiver's HTTP status (None for e-mail). Raises
        ``SendFailedError`` when it was not acknowledged. ``message_id`` identifies the message on every attempt
        (a webhook's ``webhook-id``); ``sent_at`` is this attempt's time (``webhook-timestamp``)."""
