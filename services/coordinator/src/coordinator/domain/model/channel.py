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


def new_webhook_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 24 random bytes in base64."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_secret_bytes(secret: str) -> bytes:
    """The key a Standard Webhooks secret stands for (the base64 after ``whsec_``); ValueError when it is not one.

    >>> len(webhook_secret_bytes(new_webhook_secret()))
    24
    """
    encoded = secret.removeprefix(WEBHOOK_SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a webhook secret is whsec_ followed by base64") from None
    if not 16 <= len(key) <= 64:
        raise ValueError(f"a webhook secret's key is 16 to 64 bytes; this one is {len(key)}")
    return key
