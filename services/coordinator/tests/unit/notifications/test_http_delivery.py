"""Retry-After in seconds or as an HTTP date, and what a receiver said made safe to store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from coordinator.infrastructure.notifications.http_delivery import hidden_parts, receiver_text, retry_after_seconds

NOW = datetime(2025, 10, 1, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0.0),
        (" 45 ", 45.0),
        (format_datetime(NOW + timedelta(minutes=2), usegmt=True), 120.0),
        ("Wed, 01 Oct 2025 10:00:30 GMT", 30.0),
        (format_datetime(NOW - timedelta(minutes=2), usegmt=True), 0.0),  # a date gone by: now
        ("-5", None),
        ("1.5", None),
        ("tomorrow", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_is_seconds_or_an_http_date(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, now=NOW) == seconds


def test_a_naive_now_is_taken_as_utc() -> None:
    assert retry_after_seconds("Wed, 01 Oct 2025 10:01:00 GMT", now=NOW.replace(tzinfo=None)) == 60.0


def test_what_a_receiver_said_is_one_short_line_without_the_channels_keys() -> None:
    url = "https://open.feishu.cn/open-apis/bot/v2/hook/abc-key-123?x=query-key"
    said = receiver_text(f"bad hook {url}\n\n  secret=hunter22 " + "x" * 500, hidden=hidden_parts(url, "s3cret"))
    assert "abc-key-123" not in said
    assert "query-key" not in said
    assert "hunter22" not in said
    assert "\n" not in said
    assert len(said) == 200
    assert said.startswith("bad hook [REDACTED] secret=[REDACTED] xxx")
