"""The outbox: one delivery per notification and channel, stored in the transaction that ends the watchlist's
batch, sent after, retried with exponential backoff and jitter until the channel acknowledges it or the attempts
run out (``failed``, retried by hand). Its ``delivery_id`` is the webhook's ``webhook-id`` on every attempt, so a
receiver can drop a message it has had."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from coordinator.domain.model.session import LOCAL_CLIENT_ID, utcnow

DeliveryStatus = Literal["pending", "delivered", "failed"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "delivered", "failed")


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` attempts; before attempt n + 1, ``base_seconds`` × 2^(n-1) (at most ``cap_seconds``) with
    ±``jitter`` of it at random, or the receiver's ``Retry-After`` when that is longer (at most ``cap_seconds``).
    The defaults: 6 attempts over about an hour (delays of about 2, 4, 8, 16 and 32 minutes)."""

    max_attempts: int = 6
    base_seconds: float = 120.0
    cap_seconds: float = 2400.0
    jitter: float = 0.25

    def delay(self, attempts: int, retry_after: float | None = None, rand: random.Random | None = None) -> float:
        """Seconds to wait before the next attempt, after ``attempts`` attempts failed.

        >>> RetryPolicy(jitter=0).delay(1), RetryPolicy(jitter=0).delay(3, retry_after=3600)
        (120.0, 2400.0)
        """
        backoff = min(self.cap_seconds, self.base_seconds * 2 ** max(attempts - 1, 0))
        spread = (rand or random).uniform(-self.jitter, self.jitter) if self.jitter else 0.0
        wait = backoff * (1 + spread)
        if retry_after is not None:
            wait = max(wait, retry_after)
        return float(min(wait, self.cap_seconds))


@dataclass(frozen=True)
class Delivery:
    delivery_id: str
    channel_id: str
    client_id: str = LOCAL_CLIENT_ID
    batch_id: str | None = None
    watchlist_id: str | None = None
    status: DeliveryStatus = "pending"
    attempts: int = 0
    next_attempt_at: datetime | None = None
    last_error: str | None = None
    last_status_code: int | None = None
    message: dict[str, Any] | None = None
    """The notification as first composed (``Notification.to_json``); None until the first attempt."""
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    delivered_at: datetime | None = None
