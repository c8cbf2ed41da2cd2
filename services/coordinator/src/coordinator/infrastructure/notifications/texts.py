"""The words and number formats of a notification, in Chinese and English (``TEXTS["zh"]``, ``TEXTS["en"]``).

Everything a message says besides its data (symbols, dates, the title it was given) comes from here, so a
Chinese message holds no English word: actions are 买入 / 卖出 / 持有, statuses and changes are said in words.
A missing or non-finite number is shown as ``—``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from coordinator.domain.model.channel import Language
from coordinator.domain.model.notification import Change

MISSING = "—"


def score_text(value: float | None) -> str:
    """A verdict's score, two decimals (``0.82``, ``-0.35``)."""
    return _number(value, "{:.2f}".format)


def percent_text(value: float | None) -> str:
    """A position already in percent, one decimal (``5.0%``)."""
    return _number(value, "{:.1f}%".format)


def share_text(value: float | None) -> str:
    """A share of one (a confidence of 0.78) as a whole percent (``78%``)."""
    return _number(value, lambda v: f"{v * 100:.0f}%")


def price_text(value: float | None) -> str:
    """A price, two decimals with thousands separated (``1,234.50``)."""
    return _number(value, "{:,.2f}".format)


def _number(value: float | None, shown: Callable[[float], str]) -> str:
    return shown(value) if value is not None and math.isfinite(value) else MISSING


@dataclass(frozen=True)
class Texts:
    """The words of one language. ``actions`` and ``statuses`` name the domain's values; an unknown value is
    shown as it is (data)."""

    actions: dict[str, str]
    statuses: dict[str, str]
    top: str
    bottom: str
    changes: str
    columns: tuple[str, str, str, str, str, str]
    """Rank, symbol, action, score, position, confidence (an e-mail's table header)."""
    score: str
    position: str
    confidence: str
    no_call: str
    no_changes: str
    first_run: str
    test_note: str
    link_label: str
    analysis_date: Callable[[str, str | None], str]
    counts: Callable[[int, int], str]
    status: Callable[[str], str]
    more: Callable[[int], str]
    change_line: Callable[[Change, Texts], str]
    separator: str
    colon: str

    def action(self, action: str | None) -> str:
        return self.no_call if action is None else self.actions.get(action.upper(), action)

    def status_name(self, status: str) -> str:
        return self.statuses.get(status, status)

    def describe(self, change: Change) -> str:
        """One change since the previous run, as a sentence (``600519.SH 由买入转为卖出``)."""
        return self.change_line(change, self)


def _zh_change(change: Change, t: Texts) -> str:
    symbol, price, day = change.symbol, change.price, change.day
    match change.kind:
        case "new_buy" | "new_sell":
            return f"{symbol} 新{t.action(change.action)}（此前：{t.action(change.previous)}）"
        case "flip":
            return f"{symbol} 由{t.action(change.previous)}转为{t.action(change.action)}"
        case "stop_hit" | "target_hit":
            what = "止损价" if change.kind == "stop_hit" else "目标价"
            at = f" {price_text(price)}" if price is not None else ""
            when = f"（{day}）" if day else ""
            return f"{symbol} 触及{what}{at}{when}"
        case "dropped":
            return f"{symbol} 本次无结论（此前：{t.action(change.previous)}）"
    return f"{symbol} 有变化"


def _en_change(change: Change, t: Texts) -> str:
    symbol, price, day = change.symbol, change.price, change.day
    match change.kind:
        case "new_buy" | "new_sell":
            return f"{symbol}: new {t.action(change.action)} (was {t.action(change.previous)})"
        case "flip":
            return f"{symbol}: flipped from {t.action(change.previous)} to {t.action(change.action)}"
        case "stop_hit" | "target_hit":
            what = "stop" if change.kind == "stop_hit" else "target"
            at = f" at {price_text(price)}" if price is not None else ""
            when = f" on {day}" if day else ""
            return f"{symbol}: hit its {what}{at}{when}"
        case "dropped":
            return f"{symbol}: no call this run (was {t.action(change.previous)})"
    return f"{symbol}: changed"


ZH = Texts(
    actions={"BUY": "买入", "SELL": "卖出", "HOLD": "持有"},
    statuses={
        "queued": "排队中",
        "running": "进行中",
        "completed": "已完成",
        "partial": "部分完成",
        "failed": "失败",
        "cancelled": "已取消",
        "interrupted": "已中断",
    },
    top="排名靠前",
    bottom="排名靠后",
    changes="与上次相比的变化",
    columns=("排名", "代码", "结论", "评分", "仓位", "置信度"),
    score="评分",
    position="仓位",
    confidence="置信度",
    no_call="无结论",
    no_changes="与上次相比没有变化。",
    first_run="这是该自选股列表的首次运行，没有可比较的上次结果。",
    test_note="这是一条测试消息：收到即说明该通知渠道配置正确。",
    link_label="在控制台查看",
    analysis_date=lambda day, previous: f"分析日期 {day}" + (f"（上次 {previous}）" if previous else ""),
    counts=lambda total, failed: f"共 {total} 只" + (f"，失败 {failed} 只" if failed else ""),
    status=lambda name: f"状态：{name}",
    more=lambda n: f"……另有 {n} 项未显示",
    change_line=_zh_change,
    separator=" · ",
    colon="：",
)

EN = Texts(
    actions={"BUY": "BUY", "SELL": "SELL", "HOLD": "HOLD"},
    statuses={
        "queued": "queued",
        "running": "running",
        "completed": "completed",
        "partial": "partly completed",
        "failed": "failed",
        "cancelled": "cancelled",
        "interrupted": "interrupted",
    },
    top="Top of the table",
    bottom="Bottom of the table",
    changes="Changes since the previous run",
    columns=("Rank", "Symbol", "Action", "Score", "Position", "Confidence"),
    score="score",
    position="position",
    confidence="confidence",
    no_call="no call",
    no_changes="Nothing changed since the previous run.",
    first_run="This is the watchlist's first run: there is no previous run to compare with.",
    test_note="This is a test message: if you can read it, the channel is set up correctly.",
    link_label="Open in the console",
    analysis_date=lambda day, previous: f"As of {day}" + (f" (previous run {previous})" if previous else ""),
    counts=lambda total, failed: (
        f"{total} symbol{'' if total == 1 else 's'}" + (f", {failed} failed" if failed else "")
    ),
    status=lambda name: f"status: {name}",
    more=lambda n: f"… and {n} more not shown",
    change_line=_en_change,
    separator=" · ",
    colon=": ",
)

TEXTS: dict[Language, Texts] = {"zh": ZH, "en": EN}
