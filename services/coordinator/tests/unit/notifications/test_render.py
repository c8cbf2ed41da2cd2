"""A notification in each format: in one language, numbers formatted, data escaped, within each chat's limit."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from typing import Any

import pytest
from notification_samples import SYMBOLS, channel_test_notification, many_changes, run_notification

from coordinator.domain.model.notification import Change, Notification, RankedRow
from coordinator.infrastructure.notifications.chat_formats import (
    FEISHU_MAX_BODY_BYTES,
    SLACK_MAX_SECTION_CHARS,
    feishu_payload,
    slack_payload,
    wecom_payload,
)
from coordinator.infrastructure.notifications.message import Message, compose
from coordinator.infrastructure.notifications.text_formats import email_html, plain_text, telegram_html
from coordinator.infrastructure.notifications.texts import EN, ZH

FORMATS = ("plain", "email", "telegram", "slack", "feishu", "wecom")


def visible(message: Message, fmt: str) -> str:
    """What a reader sees of ``message`` in ``fmt``: markup and the link's URL removed."""
    if fmt == "plain":
        text = plain_text(message)
    elif fmt in ("email", "telegram"):
        rendered = email_html(message) if fmt == "email" else telegram_html(message)
        text = html.unescape(re.sub(r"<[^>]+>", " ", rendered))
    elif fmt == "slack":
        payload = slack_payload(message)
        texts = [payload["text"], *(_strings(payload["blocks"], "text"))]
        text = html.unescape(re.sub(r"<[^|>]*\|([^>]*)>", r"\1", "\n".join(texts)))
    elif fmt == "feishu":
        text = "\n".join(_strings(feishu_payload(message)["content"], "text", "title"))
    else:
        content = wecom_payload(message)["markdown"]["content"]
        text = re.sub(r"\]\([^)]*\)", "]", re.sub(r"</?font[^>]*>", "", content))
    return text.replace(message.link or "\0", "")


def _strings(value: Any, *keys: str) -> list[str]:
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k in keys and isinstance(v, str)]
        return found + [s for v in value.values() for s in _strings(v, *keys)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, *keys)]
    return []


def _without_symbols(text: str) -> str:
    for symbol in sorted(SYMBOLS, key=len, reverse=True):
        text = text.replace(symbol, "")
    return text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("notification", [run_notification("zh"), channel_test_notification("zh")], ids=["run", "test"])
def test_a_chinese_message_has_no_english_word(notification: Notification, fmt: str) -> None:
    text = visible(compose(notification), fmt)
    assert re.findall(r"[A-Za-z]+", _without_symbols(text)) == []
    assert "None" not in text
    if notification.type == "watchlist.run.completed":
        for word in ("买入", "卖出", "持有", "失败", "部分完成", "由买入转为卖出", "触及止损价", "触及目标价"):
            assert word in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_english_message_names_the_actions_and_the_figures(fmt: str) -> None:
    text = visible(compose(run_notification("en")), fmt)
    if fmt != "email":  # a table there (test_an_email_shows_the_ranked_rows_as_a_table)
        assert "600519.SH BUY · score 0.82 · position 5.0% · confidence 78%" in text
        assert "0700.HK failed · score — · position — · confidence —" in text
    assert "300750.SZ: flipped from BUY to SELL" in text
    assert "000001.SZ: hit its stop at 11.20 on 2025-09-29" in text
    assert "300750.SZ: hit its target at 1,234.50 on 2025-09-30" in text
    assert "As of 2025-09-30 (previous run 2025-09-29) · 5 symbols, 1 failed · status: partly completed" in text
    assert not re.search(r"\bNone\b|\bnan\b", text)


@pytest.mark.parametrize(
    ("change", "zh", "en"),
    [
        (Change("new_buy", "X", "BUY", "HOLD"), "X 新买入（此前：持有）", "X: new BUY (was HOLD)"),
        (Change("new_sell", "X", "SELL"), "X 新卖出（此前：无结论）", "X: new SELL (was no call)"),
        (Change("flip", "X", "BUY", "SELL"), "X 由卖出转为买入", "X: flipped from SELL to BUY"),
        (Change("stop_hit", "X", price=9.5, day="2025-09-29"), "X 触及止损价 9.50（2025-09-29）", None),
        (Change("target_hit", "X"), "X 触及目标价", "X: hit its target"),
        (Change("dropped", "X", previous="SELL"), "X 本次无结论（此前：卖出）", "X: no call this run (was SELL)"),
    ],
)
def test_each_change_is_said_in_words(change: Change, zh: str, en: str | None) -> None:
    assert ZH.describe(change) == zh
    if en is not None:
        assert EN.describe(change) == en


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_channel_test_says_it_is_a_test(language: str) -> None:
    message = compose(channel_test_notification(language))  # type: ignore[arg-type]
    assert message.note == (ZH if language == "zh" else EN).test_note
    assert message.sections == ()
    for fmt in FORMATS:
        assert ("测试消息" if language == "zh" else "test message") in visible(message, fmt)


def test_a_first_run_and_a_run_without_changes_say_so() -> None:
    assert compose(run_notification(changes=[], previous_analysis_date=None)).note == ZH.first_run
    assert compose(run_notification("en", changes=[])).note == EN.no_changes


def test_data_is_escaped_in_every_markup() -> None:
    evil = "<script>alert('x')</script>&"
    notification = run_notification(
        title=f"核心 {evil}",
        top=[RankedRow(1, evil, "s1", "completed", "BUY", 0.5, None, 1.0, 0.5)],
        link="https://console.example.com/b?a=1&b=<2>",
    )
    message = compose(notification)
    slack = slack_payload(message)
    slack_mrkdwn = [slack["text"], *(b["text"]["text"] for b in slack["blocks"] if b["type"] == "section")]
    assert slack["blocks"][0]["text"]["text"] == message.title  # plain_text: Slack shows it as it is
    for rendered in (email_html(message), telegram_html(message), "\n".join(slack_mrkdwn)):
        assert "<script>" not in rendered
        assert "&lt;script&gt;" in rendered
    assert 'href="https://console.example.com/b?a=1&amp;b=&lt;2&gt;"' in email_html(message)
    assert 'href="https://console.example.com/b?a=1&amp;b=&lt;2&gt;"' in telegram_html(message)


def test_a_link_that_is_not_a_web_address_is_never_an_anchor() -> None:
    message = compose(run_notification(link="javascript:alert(1)"))
    assert "href" not in email_html(message)
    assert "href" not in telegram_html(message)
    assert "<javascript" not in json.dumps(slack_payload(message))
    assert "](javascript" not in wecom_payload(message)["markdown"]["content"]
    assert '"tag": "a"' not in json.dumps(feishu_payload(message))
    assert "在控制台查看：javascript:alert(1)" in plain_text(message)


def test_an_email_shows_the_ranked_rows_as_a_table() -> None:
    page = email_html(compose(run_notification("en")))
    assert page.count("<table") == 2
    assert re.search(r"<td[^>]*>600519\.SH</td><td[^>]*>BUY</td><td[^>]*>0\.82</td>", page)
    assert '<html lang="en">' in page


def _shown_and_left_out(text: str) -> tuple[int, int]:
    shown = len(re.findall(r"\d{6}\.SH (?:由买入转为卖出)", text))
    left_out = re.search(r"另有 (\d+) 项未显示", text)
    return shown, int(left_out.group(1)) if left_out else 0


def test_wecom_cuts_the_rows_to_4096_bytes_and_says_how_many_it_left_out() -> None:
    message = compose(run_notification(changes=many_changes(300)))
    content = wecom_payload(message)["markdown"]["content"]
    assert 3500 < len(content.encode()) <= 4096
    shown, left_out = _shown_and_left_out(content)
    assert shown > 0
    assert shown + left_out == 300
    assert "排名靠前" in content  # the ranked rows come first and stay


def test_telegram_slack_and_feishu_stay_within_their_limits() -> None:
    message = compose(run_notification(changes=many_changes(1000)))
    telegram = telegram_html(message)
    assert len(telegram) <= 4096
    assert sum(_shown_and_left_out(html.unescape(telegram))) == 1000
    slack = slack_payload(message)
    assert all(len(b["text"]["text"]) <= SLACK_MAX_SECTION_CHARS for b in slack["blocks"] if b["type"] == "section")
    feishu = feishu_payload(message)
    assert len(json.dumps(feishu, ensure_ascii=False, separators=(",", ":")).encode()) <= FEISHU_MAX_BODY_BYTES
    assert sum(_shown_and_left_out(json.dumps(feishu, ensure_ascii=False))) == 1000


def test_a_short_message_is_not_cut() -> None:
    message = compose(run_notification())
    assert "未显示" not in wecom_payload(message)["markdown"]["content"]
    assert "未显示" not in telegram_html(message)


def test_a_long_title_is_cut_and_slack_header_fits() -> None:
    message = compose(replace(run_notification(), title="核" * 500))
    assert len(message.title) == 200
    assert len(slack_payload(message)["blocks"][0]["text"]["text"]) <= 150


def test_the_shapes_each_chat_documents() -> None:
    message = compose(run_notification("en"))
    slack = slack_payload(message)
    assert set(slack) == {"text", "blocks"}
    assert slack["blocks"][0] == {"type": "header", "text": {"type": "plain_text", "text": message.title}}
    assert slack["blocks"][-1]["text"]["text"] == (
        "<https://console.example.com/console/batches/b1?tab=ranked&amp;x=1|Open in the console>"
    )
    feishu = feishu_payload(message)
    assert feishu["msg_type"] == "post"
    assert feishu["content"]["post"]["en_us"]["title"] == message.title
    assert feishu["content"]["post"]["en_us"]["content"][-1] == [
        {"tag": "a", "text": "Open in the console", "href": run_notification().link}
    ]
    assert "zh_cn" in feishu_payload(compose(run_notification("zh")))["content"]["post"]
    wecom = wecom_payload(message)
    assert wecom["msgtype"] == "markdown"
    assert wecom["markdown"]["content"].startswith(f"## {message.title}\n")
