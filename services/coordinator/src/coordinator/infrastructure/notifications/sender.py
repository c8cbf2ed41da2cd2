"""``NotificationSender``: the one ``INotificationSender``. It puts the notification into words
(``message.compose``) and hands it to the sender of the channel's kind: ``webhook_sender``, ``chat_senders``
(Slack, Feishu, WeCom, Telegram) or ``email_sender``.

Built once in the composition root with the service's shared ``httpx.AsyncClient`` and the SMTP settings; tests
give it a client over ``httpx.MockTransport`` or a local receiver.
"""

from __future__ import annotations

from datetime import datetime

import httpx
import structlog

from coordinator.domain.model.channel import Channel
from coordinator.domain.model.notification import Notification
from coordinator.domain.ports.notification_sender import INotificationSender, SendFailedError
from coordinator.infrastructure.notifications.chat_senders import send_feishu, send_slack, send_telegram, send_wecom
from coordinator.infrastructure.notifications.email_sender import SmtpSettings, send_email
from coordinator.infrastructure.notifications.message import compose
from coordinator.infrastructure.notifications.webhook_sender import send_webhook

log = structlog.get_logger(__name__)

TELEGRAM_API_BASE = "https://api.telegram.org"


class NotificationSender(INotificationSender):
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        request_timeout_seconds: float = 10.0,
        telegram_api_base: str = TELEGRAM_API_BASE,
        smtp_host: str | None = None,
        smtp_port: int = 587,
        smtp_username: str | None = None,
        smtp_password: str | None = None,
        smtp_from: str | None = None,
        smtp_starttls: bool = True,
        smtp_use_tls: bool = False,
        smtp_timeout_seconds: float = 30.0,
    ) -> None:
        self._client = client
        self._timeout = request_timeout_seconds
        self._telegram_api_base = telegram_api_base
        self._smtp = SmtpSettings(
            host=smtp_host,
            port=smtp_port,
            username=smtp_username,
            password=smtp_password,
            sender=smtp_from,
            starttls=smtp_starttls,
            use_tls=smtp_use_tls,
            timeout_seconds=smtp_timeout_seconds,
        )

    async def send(
        self, channel: Channel, notification: Notification, *, message_id: str, sent_at: datetime
    ) -> int | None:
        try:
            status = await self._send(channel, notification, message_id=message_id, sent_at=sent_at)
        except SendFailedError as exc:
            log.debug("notification not delivered", channel_id=channel.channel_id, kind=channel.kind, error=str(exc))
            raise
        log.debug("notification delivered", channel_id=channel.channel_id, kind=channel.kind, status_code=status)
        return status

    async def _send(
        self, channel: Channel, notification: Notification, *, message_id: str, sent_at: datetime
    ) -> int | None:
        client, timeout = self._client, self._timeout
        if channel.kind == "webhook":
            return await send_webhook(
                client, channel, notification, message_id=message_id, sent_at=sent_at, timeout_seconds=timeout
            )
        message = compose(notification)
        match channel.kind:
            case "slack":
                return await send_slack(client, channel, message, sent_at=sent_at, timeout_seconds=timeout)
            case "feishu":
                return await send_feishu(client, channel, message, sent_at=sent_at, timeout_seconds=timeout)
            case "wecom":
                return await send_wecom(client, channel, message, sent_at=sent_at, timeout_seconds=timeout)
            case "telegram":
                return await send_telegram(
                    client, channel, message, sent_at=sent_at, timeout_seconds=timeout, api_base=self._telegram_api_base
                )
            case "email":
                await send_email(self._smtp, channel, message, sent_at=sent_at)
                return None
        raise SendFailedError(f"no sender for channel kind {channel.kind!r}", permanent=True)
