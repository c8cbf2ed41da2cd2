"""The channel use cases: a client's notification targets (checked against their kind), listed with their secrets
withheld, tested with a message sent at once, deleted. Private per client."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from coordinator.domain.exceptions import ChannelNotFoundError, InvalidChannelError
from coordinator.domain.model.channel import (
    URL_KINDS,
    Channel,
    ChannelKind,
    Language,
    new_webhook_secret,
    webhook_secret_bytes,
)
from coordinator.domain.model.notification import Notification
from coordinator.domain.model.session import utcnow
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.channel_store import IChannelStore
from coordinator.domain.ports.notification_sender import INotificationSender, SendFailedError

MAX_EMAIL_RECIPIENTS = 20
_EMAIL = re.compile(r"[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+")
_BOT_TOKEN = re.compile(r"\d+:[A-Za-z0-9_-]{20,}")
_TEST_TITLES = {
    "zh": "测试消息：此频道可以接收研究通知",
    "en": "Test message: this channel receives research notifications",
}


@dataclass(frozen=True)
class ChannelTestOutcome:
    delivered: bool
    status_code: int | None = None
    error: str | None = None


class ChannelService:
    def __init__(self, store: IChannelStore, sender: INotificationSender) -> None:
        self._store = store
        self._sender = sender

    async def create(
        self,
        viewer: Viewer,
        *,
        kind: ChannelKind,
        target: str,
        secret: str | None = None,
        name: str | None = None,
        language: Language = "zh",
    ) -> tuple[Channel, str | None]:
        """The channel stored, and its webhook secret when one was generated (shown this once). Raises 400
        ``invalid_channel`` for a target or a secret that does not fit the kind."""
        target, secret = target.strip(), (secret.strip() or None) if secret is not None else None
        generated = None
        _check_target(kind, target)
        if kind == "webhook":
            if secret is None:
                secret = generated = new_webhook_secret()
            webhook_secret_bytes(secret)
        elif kind == "telegram":
            if secret is None or not _BOT_TOKEN.fullmatch(secret):
                raise InvalidChannelError("secret: a telegram channel needs its bot's token (123456:ABC…)")
        elif kind != "feishu" and secret is not None:
            raise InvalidChannelError(f"secret: a {kind} channel takes no secret")
        channel = Channel(
            str(uuid.uuid4()), kind, target, secret, (name or "").strip() or None, language, viewer.client_id
        )
        await self._store.create(channel)
        return channel, generated

    async def get(self, channel_id: str, viewer: Viewer) -> Channel:
        channel = await self._store.get(channel_id)
        if channel is None or not (viewer.sees_all or channel.client_id == viewer.client_id):
            raise ChannelNotFoundError(channel_id)
        return channel

    async def page(self, viewer: Viewer, *, offset: int, limit: int) -> tuple[list[Channel], int]:
        return await self._store.page(viewer.only_client, offset=offset, limit=limit)

    async def delete(self, channel_id: str, viewer: Viewer) -> None:
        """Deletes it; its deliveries not yet sent end ``failed``."""
        await self.get(channel_id, viewer)
        await self._store.delete(channel_id)

    async def test(self, channel_id: str, viewer: Viewer) -> ChannelTestOutcome:
        """Sends a test message now (not through the outbox: no retry) and says how the receiver answered."""
        channel = await self.get(channel_id, viewer)
        message = Notification(type="channel.test", title=_TEST_TITLES[channel.language], language=channel.language)
        try:
            status = await self._sender.send(channel, message, message_id=f"test_{uuid.uuid4()}", sent_at=utcnow())
        except SendFailedError as exc:
            return ChannelTestOutcome(False, exc.status_code, str(exc))
        return ChannelTestOutcome(True, status)


def _check_target(kind: ChannelKind, target: str) -> None:
    if kind in URL_KINDS:
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidChannelError(f"target: a {kind} channel's target is an http(s) URL")
    elif kind == "telegram":
        if not re.fullmatch(r"-?\d{1,20}|@[A-Za-z0-9_]{5,64}", target):
            raise InvalidChannelError("target: a telegram channel's target is a chat id (e.g. -1001234567890 or @name)")
    else:
        addresses = [a.strip() for a in target.split(",") if a.strip()]
        if not addresses or len(addresses) > MAX_EMAIL_RECIPIENTS:
            raise InvalidChannelError(f"target: 1 to {MAX_EMAIL_RECIPIENTS} e-mail addresses, comma-separated")
        if bad := [a for a in addresses if not _EMAIL.fullmatch(a)]:
            raise InvalidChannelError(f"target: not an e-mail address: {', '.join(bad[:5])}")
