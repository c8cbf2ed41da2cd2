"""Where a client's notifications go: a signed webhook, a chat (Slack, Feishu, WeCom, Telegram) or e-mail.

A channel's ``secret`` (a webhook's signing secret, a Feishu bot's signing secret, a Telegram bot token) is stored
to send with and never shown back; the chat kinds' targets carry their own keys in the URL, so views show them
masked (``shown_target``).
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from urllib.parse import urlsplit

from coordinator.domain.exceptions import InvalidChannelError
from coordinator.domain.model.session import LOCAL_CLIENT_ID, utcnow

ChannelKind = Literal["webhook", "slack", "feishu", "wecom", "telegram", "email"]
CHANNEL_KINDS: tuple[ChannelKind, ...] = ("webhook", "slack", "feishu", "wecom", "telegram", "email")
Language = Literal["zh", "en"]
URL_KINDS: frozenset[str] = frozenset({"webhook", "slack", "feishu", "wecom"})
"""Kinds whose target is an http(s) URL."""
KEYED_URL_KINDS: frozenset[str] = frozenset({"slack", "feishu", "wecom"})
"""Kinds whose URL holds the key that lets anyone post (shown masked)."""


@dataclass(frozen=True)
class Channel:
    channel_id: str
    kind: ChannelKind
    target: str
    """An http(s) URL (webhook, slack, feishu, wecom), a chat id (telegram) or e-mail addresses (comma-separated)."""
    secret: str | None = field(default=None, repr=False)
    name: str | None = None
    language: Language = "zh"
    client_id: str = LOCAL_CLIENT_ID
    created_at: datetime = field(default_factory=utcnow)

    @property
    def shown_target(self) -> str:
        """The target as views show it: a chat URL as scheme, host and the path's last four characters.

        >>> Channel("c", "slack", "https://hooks.slack.com/services/T0/B0/abcdefgh").shown_target
        'https://hooks.slack.com/…efgh'
        """
        if self.kind not in KEYED_URL_KINDS:
            return self.target
        parts = urlsplit(self.target)
        tail = (parts.path + ("?" + parts.query if parts.query else ""))[-4:]
        return f"{parts.scheme}://{parts.netloc}/…{tail}"


WEBHOOK_SECRET_PREFIX = "whsec_"
WEBHOOK_SECRET_BYTES = 24
WEBHOOK_SECRET_MAX_BYTES = 64


def new_webhook_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and the base64 of 24 random bytes."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(WEBHOOK_SECRET_BYTES)).decode()


def webhook_secret_bytes(secret: str) -> bytes:
    """The HMAC key a webhook secret stands for (the bytes of its base64 after ``whsec_``); raises
    ``InvalidChannelError`` (never repeating the secret) for anything but ``whsec_`` + the base64 of 24 to 64 bytes.

    >>> len(webhook_secret_bytes(new_webhook_secret()))
    24
    """
    if not secret.startswith(WEBHOOK_SECRET_PREFIX):
        raise InvalidChannelError(f"A webhook secret begins with {WEBHOOK_SECRET_PREFIX!r}.")
    try:
        key = base64.b64decode(secret.removeprefix(WEBHOOK_SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidChannelError(f"A webhook secret is {WEBHOOK_SECRET_PREFIX!r} and then base64.") from None
    if not WEBHOOK_SECRET_BYTES <= len(key) <= WEBHOOK_SECRET_MAX_BYTES:
        raise InvalidChannelError(
            f"A webhook secret holds {WEBHOOK_SECRET_BYTES} to {WEBHOOK_SECRET_MAX_BYTES} bytes (this one {len(key)})."
        )
    return key
