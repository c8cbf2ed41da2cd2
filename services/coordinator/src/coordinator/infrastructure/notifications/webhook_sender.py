"""A webhook channel: POST ``{"type", "timestamp", "data": notification.to_json()}`` to the target, signed per
Standard Webhooks (``signing.webhook_headers``) with the channel's secret; the same ``webhook-id`` on every
attempt lets the receiver drop a message it has had."""

from __future__ import annotations

import json
from datetime import datetime

import httpx

from coordinator.domain.exceptions import InvalidChannelError
from coordinator.domain.model.channel import Channel
from coordinator.domain.model.notification import Notification
from coordinator.domain.ports.notification_sender import SendFailedError
from coordinator.infrastructure.notifications.http_delivery import (
    answer_text,
    delivered,
    hidden_parts,
    host_of,
    post,
    utc,
)
from coordinator.infrastructure.notifications.signing import webhook_headers


def webhook_body(notification: Notification, sent_at: datetime) -> bytes:
    """The exact bytes sent (and signed): compact JSON in UTF-8."""
    timestamp = utc(sent_at).isoformat().replace("+00:00", "Z")
    envelope = {"type": notification.type, "timestamp": timestamp, "data": notification.to_json()}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode()


async def send_webhook(
    client: httpx.AsyncClient,
    channel: Channel,
    notification: Notification,
    *,
    message_id: str,
    sent_at: datetime,
    timeout_seconds: float,
) -> int:
    if not channel.secret:
        raise SendFailedError("the webhook channel has no signing secret", permanent=True)
    body = webhook_body(notification, sent_at)
    try:
        signature = webhook_headers(channel.secret, message_id, int(utc(sent_at).timestamp()), body)
    except InvalidChannelError as exc:
        raise SendFailedError(f"the webhook channel's secret cannot sign: {exc}", permanent=True) from None
    headers = {"content-type": "application/json", **signature}
    response = await post(client, channel.target, content=body, headers=headers, timeout_seconds=timeout_seconds)
    said = None if response.is_success else answer_text(response, hidden=hidden_parts(channel.target, channel.secret))
    return delivered(response, host_of(channel.target), now=sent_at, said=said)
