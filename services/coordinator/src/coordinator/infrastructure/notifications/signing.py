"""Signatures the receivers check: Standard Webhooks' (a webhook channel) and a Feishu custom bot's.

- ``webhook_headers(secret, message_id, timestamp, body)``: ``webhook-id``, ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`` keyed with the secret's bytes
  (``domain.model.channel.webhook_secret_bytes``);
- ``feishu_sign(secret, timestamp)``: base64 of HMAC-SHA256 keyed with ``"{timestamp}\\n{secret}"`` over nothing
  (Feishu's custom-bot "signature verification").
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from coordinator.domain.model.channel import webhook_secret_bytes


def webhook_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Standard Webhooks' three headers for ``body`` sent as ``message_id`` at ``timestamp`` (unix seconds)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    signature = base64.b64encode(hmac.new(webhook_secret_bytes(secret), signed, hashlib.sha256).digest()).decode()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": f"v1,{signature}"}


def feishu_sign(secret: str, timestamp: int) -> str:
    """A Feishu custom bot's ``sign`` for ``timestamp`` (unix seconds)."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
