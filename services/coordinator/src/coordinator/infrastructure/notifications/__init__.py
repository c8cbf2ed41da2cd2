"""Formats one notification for one channel and sends it: ``NotificationSender`` (the ``INotificationSender``)
and ``SendFailedError``'s rules (``http_delivery``). A webhook secret is made and checked by the domain
(``domain.model.channel``)."""

from coordinator.infrastructure.notifications.sender import NotificationSender

__all__ = ["NotificationSender"]
