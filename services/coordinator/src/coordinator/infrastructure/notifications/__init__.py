"""Formats one notification for one channel and sends it: ``NotificationSender`` (the ``INotificationSender``),
the webhook secret's helpers (``generate_webhook_secret``, ``validate_webhook_secret``) and ``SendFailedError``'s
rules (``http_delivery``)."""

from coordinator.infrastructure.notifications.sender import NotificationSender
from coordinator.infrastructure.notifications.signing import generate_webhook_secret, validate_webhook_secret

__all__ = ["NotificationSender", "generate_webhook_secret", "validate_webhook_secret"]
