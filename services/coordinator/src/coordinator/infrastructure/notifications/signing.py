"""Signatures the receivers check: Standard Webhooks' (a webhook channel) and a Feishu custom bot's.

- ``generate_webhook_secret()``: ``whsec_`` + the base64 of 24 random bytes, what a webhook channel gets when its
  owner gives none; ``validate_webhook_secret(secret)`` refuses anything else than ``whsec_`` + the base64 of 24 to
  64 bytes (``InvalidChannelError``, whose message never repeats the secret);
- ``webhook_headers(secret, message_id, timestamp, body)``: ``webhook-id``, ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`` keyed with the secret's bytes;
- ``feishu_sign(secret, timestamp)``: base64 of HMAC-SHA256 keyed with ``"{timestamp}\\n{secret}"`` over nothing
  (Feishu's custom-bot "signature verification").
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from coordinator.domain.exceptions import InvalidChannelError

WEBHOOK_SECRET_PREFIX = "whsec_"
WEBHOOK_SECRET_BYTES = 24
WEBHOOK_SECRET_MAX_BYTES = 64


def generate_webhook_secret() -> str:
    """A new signing secret: ``whsec_`` + base64 of 24 random bytes."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(WEBHOOK_SECRET_BYTES)).decode()


def webhook_key(secret: str) -> bytes:
    """The HMAC key of a webhook secret (the bytes its base64 after ``whsec_`` stands for); raises
    ``InvalidChannelError`` for a secret that is not ``whsec_`` + the base64 of 24 to 64 bytes."""
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


def validate_webhook_secret(secret: str) -> None:
    """Raises ``InvalidChannelError`` when ``secret`` cannot sign a webhook (see ``webhook_key``)."""
    webhook_key(secret)


def webhook_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Standard Webhooks' three headers for ``body`` sent as ``message_id`` at ``timestamp`` (unix seconds)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    signature = base64.b64encode(hmac.new(webhook_key(secret), signed, hashlib.sha256).digest()).decode()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": f"v1,{signature}"}


def feishu_sign(secret: str, timestamp: int) -> str:
    """A Feishu custom bot's ``sign`` for ``timestamp`` (unix seconds)."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
