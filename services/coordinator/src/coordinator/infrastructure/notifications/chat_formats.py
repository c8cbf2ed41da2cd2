"""A ``Message`` as the body a chat bot's incoming webhook takes, each shortened to the chat's limit:

- Slack: ``{"text": fallback, "blocks": [header, context, section…]}``, mrkdwn escaped (``&``, ``<``, ``>``), each
  section's text at most 3,000 characters, the header at most 150;
- Feishu: ``{"msg_type": "post", "content": {"post": {"zh_cn" | "en_us": {"title", "content": [[tags]]}}}}``
  (text and ``a`` tags, no markup to escape), the body within Feishu's 20 KB;
- WeCom: ``{"msgtype": "markdown", "markdown": {"content": …}}``, the content at most 4,096 bytes of UTF-8.
"""

from __future__ import annotations

import json
from typing import Any

from coordinator.infrastructure.notifications.message import Message, fit, web_link

SLACK_MAX_SECTION_CHARS = 3000
SLACK_MAX_HEADER_CHARS = 150
FEISHU_MAX_BODY_BYTES = 19_000
"""Feishu takes 20 KB; the rest is room for ``timestamp`` and ``sign``."""
WECOM_MAX_CONTENT_BYTES = 4096


def slack_payload(message: Message) -> dict[str, Any]:
    """Slack's incoming-webhook body: blocks and the fallback ``text`` notifications show."""
    shown = fit(message, lambda m: all(len(s) <= SLACK_MAX_SECTION_CHARS for s in _slack_sections(m)))
    title = shown.title if len(shown.title) <= SLACK_MAX_HEADER_CHARS else shown.title[:149] + "…"
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": title}}]
    if shown.summary:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": _slack(shown.summary)}]})
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": text}} for text in _slack_sections(shown)]
    fallback = _slack(shown.title + (f" — {shown.summary}" if shown.summary else ""))
    return {"text": fallback, "blocks": blocks}


def _slack_sections(message: Message) -> list[str]:
    texts = [_slack(message.note)] if message.note else []
    texts += [
        "\n".join([f"*{_slack(s.heading)}*", *(_slack(line) for line in s.shown_lines)]) for s in message.sections
    ]
    if link := web_link(message.link):
        texts.append(f"<{_slack(link)}|{_slack(message.link_label)}>")
    elif message.link:
        texts.append(_slack(message.link_text))
    return texts


def _slack(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def feishu_payload(message: Message) -> dict[str, Any]:
    """A Feishu custom bot's rich-text (``post``) body, without ``timestamp``/``sign`` (the sender adds them)."""
    shown = fit(message, lambda m: len(_json_bytes(_feishu(m))) <= FEISHU_MAX_BODY_BYTES)
    return _feishu(shown)


def _feishu(message: Message) -> dict[str, Any]:
    paragraphs: list[list[dict[str, Any]]] = []
    if message.summary:
        paragraphs.append([{"tag": "text", "text": message.summary}])
    if message.note:
        paragraphs.append([{"tag": "text", "text": message.note}])
    for section in message.sections:
        paragraphs.append([{"tag": "text", "text": section.heading, "style": ["bold"]}])
        paragraphs += [[{"tag": "text", "text": line}] for line in section.shown_lines]
    if link := web_link(message.link):
        paragraphs.append([{"tag": "a", "text": message.link_label, "href": link}])
    elif message.link:
        paragraphs.append([{"tag": "text", "text": message.link_text}])
    locale = "zh_cn" if message.language == "zh" else "en_us"
    post = {locale: {"title": message.title, "content": paragraphs}}
    return {"msg_type": "post", "content": {"post": post}}


def wecom_payload(message: Message) -> dict[str, Any]:
    """A WeCom group bot's ``markdown`` body (WeCom's markdown has no escape: data is shown as it is)."""
    shown = fit(message, lambda m: len(_wecom(m).encode()) <= WECOM_MAX_CONTENT_BYTES)
    return {"msgtype": "markdown", "markdown": {"content": _wecom(shown)}}


def _wecom(message: Message) -> str:
    blocks = [f"## {message.title}"]
    if message.summary:
        blocks.append(f'<font color="comment">{message.summary}</font>')
    if message.note:
        blocks.append(message.note)
    for section in message.sections:
        blocks.append("\n".join([f"**{section.heading}**", *section.shown_lines]))
    if link := web_link(message.link):
        label = message.link_label.replace("[", "(").replace("]", ")")
        blocks.append(f"[{label}]({link})")
    elif message.link:
        blocks.append(message.link_text)
    return "\n\n".join(blocks)


def _json_bytes(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
