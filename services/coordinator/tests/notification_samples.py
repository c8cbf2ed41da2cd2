"""Notifications and channels for the notification senders' tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from coordinator.domain.model.channel import Channel, ChannelKind, Language
from coordinator.domain.model.notification import Change, Notification, RankedRow

SENT_AT = datetime(2025, 10, 1, 10, 0, 0, tzinfo=UTC)
SYMBOLS = ("600519.SH", "000001.SZ", "300750.SZ", "AAPL", "0700.HK")


def run_notification(language: Language = "zh", **changes: Any) -> Notification:
    """A watchlist's run with every kind of change, a row without a verdict and a link."""
    title = "自选股「核心」：5 只已完成研究（2025-09-30）" if language == "zh" else "Watchlist Core: 5 researched"
    notification = Notification(
        type="watchlist.run.completed",
        title=title,
        language=language,
        watchlist_id="w1",
        watchlist_name="Core",
        batch_id="b1",
        batch_status="partial",
        analysis_date="2025-09-30",
        previous_analysis_date="2025-09-29",
        total=5,
        failed=1,
        top=[
            RankedRow(1, "600519.SH", "s1", "completed", "BUY", 0.8234, 0.95, 5.0, 0.781),
            RankedRow(2, "000001.SZ", "s2", "completed", "HOLD", 0.1, 0.5, 0.0, 0.55),
        ],
        bottom=[
            RankedRow(4, "AAPL", "s4", "completed", "SELL", -0.456, 0.1, 2.5, 0.6),
            RankedRow(5, "0700.HK", "s5", "failed"),
        ],
        changes=[
            Change("new_buy", "600519.SH", action="BUY", previous="HOLD"),
            Change("new_sell", "AAPL", action="SELL", previous=None),
            Change("flip", "300750.SZ", action="SELL", previous="BUY"),
            Change("stop_hit", "000001.SZ", price=11.2, day="2025-09-29"),
            Change("target_hit", "300750.SZ", price=1234.5, day="2025-09-30"),
            Change("dropped", "0700.HK", previous="BUY"),
        ],
        link="https://console.example.com/console/batches/b1?tab=ranked&x=1",
    )
    return replace(notification, **changes)


def channel_test_notification(language: Language = "zh") -> Notification:
    title = "测试通知" if language == "zh" else "Test notification"
    return Notification(type="channel.test", title=title, language=language)


def many_changes(count: int) -> list[Change]:
    return [Change("flip", f"{600000 + i}.SH", action="SELL", previous="BUY") for i in range(count)]


def channel(kind: ChannelKind, target: str, secret: str | None = None, language: Language = "zh") -> Channel:
    return Channel(channel_id=f"ch-{kind}", kind=kind, target=target, secret=secret, language=language)
