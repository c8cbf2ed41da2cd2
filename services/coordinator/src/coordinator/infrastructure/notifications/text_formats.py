"""A ``Message`` as plain text, as an e-mail's HTML and as Telegram's HTML (``parse_mode: HTML``, at most
4,096 characters). Every piece of data is escaped in the HTML formats; a link is an anchor only when it is an
absolute http(s) URL."""

from __future__ import annotations

from html import escape

from coordinator.infrastructure.notifications.message import Message, Section, fit, web_link

TELEGRAM_MAX_CHARS = 4096


def plain_text(message: Message) -> str:
    """Title, summary, note, each section's heading and its lines (indented), and the link."""
    blocks = [_lines(message.title, message.summary)]
    if message.note:
        blocks.append(message.note)
    for section in message.sections:
        blocks.append(_lines(section.heading, *(f"  {line}" for line in section.shown_lines)))
    if message.link:
        blocks.append(message.link_text)
    return "\n\n".join(blocks) + "\n"


def email_html(message: Message) -> str:
    """A whole HTML document: the ranked sections as tables, the changes as a list."""
    parts = [f"<h2>{escape(message.title)}</h2>"]
    if message.summary:
        parts.append(f'<p style="color:#555">{escape(message.summary)}</p>')
    if message.note:
        parts.append(f"<p>{escape(message.note)}</p>")
    for section in message.sections:
        parts.append(f"<h3>{escape(section.heading)}</h3>")
        parts.append(_table(message, section) if section.cells else _list(section))
        if section.more_line:
            parts.append(f'<p style="color:#555">{escape(section.more_line)}</p>')
    if link := web_link(message.link):
        parts.append(f'<p><a href="{escape(link)}">{escape(message.link_label)}</a></p>')
    elif message.link:
        parts.append(f"<p>{escape(message.link_text)}</p>")
    lang = "zh-CN" if message.language == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{escape(message.title)}</title>'
        '</head>\n<body style="font-family:sans-serif;font-size:14px;line-height:1.5">\n'
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def telegram_html(message: Message) -> str:
    """Telegram's HTML subset (``<b>``, ``<i>``, ``<a>``), shortened to ``TELEGRAM_MAX_CHARS``."""
    return _telegram(fit(message, lambda m: len(_telegram(m)) <= TELEGRAM_MAX_CHARS))


def _telegram(message: Message) -> str:
    head = f"<b>{_tg(message.title)}</b>"
    if message.summary:
        head += f"\n<i>{_tg(message.summary)}</i>"
    blocks = [head]
    if message.note:
        blocks.append(_tg(message.note))
    for section in message.sections:
        blocks.append(_lines(f"<b>{_tg(section.heading)}</b>", *(_tg(line) for line in section.shown_lines)))
    if link := web_link(message.link):
        blocks.append(f'<a href="{_tg(link, quote=True)}">{_tg(message.link_label)}</a>')
    elif message.link:
        blocks.append(_tg(message.link_text))
    return "\n\n".join(blocks)


def _tg(text: str, *, quote: bool = False) -> str:
    """Telegram's escaping: ``&``, ``<``, ``>`` (and ``"`` in an attribute), the entities it names."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def _table(message: Message, section: Section) -> str:
    cell = 'style="padding:2px 8px;text-align:{}"'
    aligns = ("right", "left", "left", "right", "right", "right")
    header = "".join(f"<th {cell.format(a)}>{escape(c)}</th>" for c, a in zip(message.columns, aligns, strict=False))
    rows = "".join(
        "<tr>" + "".join(f"<td {cell.format(a)}>{escape(v)}</td>" for v, a in zip(r, aligns, strict=False)) + "</tr>"
        for r in section.cells
    )
    return f'<table style="border-collapse:collapse"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>'


def _list(section: Section) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in section.lines) + "</ul>"


def _lines(*lines: str | None) -> str:
    return "\n".join(line for line in lines if line)
