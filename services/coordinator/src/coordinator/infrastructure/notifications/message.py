"""A notification put into words, before any format: ``compose(notification)`` gives a ``Message`` (title,
summary line, note, sections of lines, link) in the notification's language; each format renders it.

``fit(message, fits)`` shortens a message for a channel with a size limit: it keeps as many lines as fit, from the
first, and ends each cut section with a line saying how many were left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from coordinator.domain.model.channel import Language
from coordinator.domain.model.notification import Notification, RankedRow
from coordinator.infrastructure.notifications.texts import TEXTS, Texts, percent_text, score_text, share_text

MAX_TITLE_CHARS = 200
"""A longer title is cut (every format can then show the title, summary and note within its limit)."""


@dataclass(frozen=True)
class Section:
    """A heading and its lines. A ranked section also has ``cells``: each line's values by ``Texts.columns``
    (an e-mail shows them as a table). ``more``: how many lines ``fit`` left out, said in ``more_line``."""

    heading: str
    lines: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...] = ()
    more: int = 0
    more_line: str | None = None

    @property
    def shown_lines(self) -> tuple[str, ...]:
        """The lines, then the line saying how many were left out (when some were)."""
        return (*self.lines, self.more_line) if self.more_line else self.lines


@dataclass(frozen=True)
class Message:
    language: Language
    title: str
    summary: str | None
    """Analysis date, counts, status: one line (None when the notification has none of them)."""
    note: str | None
    """A test message says so; a run says when there is nothing to compare or nothing changed."""
    sections: tuple[Section, ...]
    link: str | None
    link_label: str
    columns: tuple[str, ...]

    @property
    def texts(self) -> Texts:
        return TEXTS[self.language]

    @property
    def link_text(self) -> str:
        """The link written out after its label (where it cannot be an anchor)."""
        return f"{self.link_label}{self.texts.colon}{self.link}"

    @property
    def line_count(self) -> int:
        return sum(len(s.lines) for s in self.sections)

    def keeping(self, lines: int) -> Message:
        """This message with only its first ``lines`` lines (in section order); a cut section says how many
        it left out."""
        sections: list[Section] = []
        left = lines
        for section in self.sections:
            kept = min(left, len(section.lines))
            left -= kept
            more = section.more + len(section.lines) - kept
            sections.append(
                replace(
                    section,
                    lines=section.lines[:kept],
                    cells=section.cells[:kept],
                    more=more,
                    more_line=self.texts.more(more) if more else None,
                )
            )
        return replace(self, sections=tuple(sections))


def fit(message: Message, fits: Callable[[Message], bool]) -> Message:
    """The message with as many of its lines as ``fits`` accepts (all of them when it accepts the whole)."""
    if fits(message):
        return message
    low, high = 0, message.line_count - 1  # the most lines known to fit is >= low; the whole does not fit
    while low < high:
        middle = (low + high + 1) // 2
        if fits(message.keeping(middle)):
            low = middle
        else:
            high = middle - 1
    return message.keeping(low)


def web_link(link: str | None) -> str | None:
    """``link`` when it is an absolute http(s) URL a chat can open, else None."""
    if not link:
        return None
    parts = urlsplit(link)
    return link if parts.scheme in ("http", "https") and parts.netloc else None


def compose(notification: Notification) -> Message:
    """The notification in words of its language (see the module's docstring)."""
    t = TEXTS[notification.language]
    title = notification.title.strip().replace("\n", " ")
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1] + "…"
    sections = [
        _ranked(heading, rows, t) for heading, rows in ((t.top, notification.top), (t.bottom, notification.bottom))
    ]
    note = t.test_note if notification.type == "channel.test" else None
    if notification.changes:
        sections.append(Section(t.changes, tuple(t.describe(c) for c in notification.changes)))
    elif notification.type == "watchlist.run.completed":
        note = t.first_run if notification.previous_analysis_date is None else t.no_changes
    return Message(
        language=notification.language,
        title=title,
        summary=_summary(notification, t),
        note=note,
        sections=tuple(s for s in sections if s.lines),
        link=notification.link or None,
        link_label=t.link_label,
        columns=t.columns,
    )


def _summary(notification: Notification, t: Texts) -> str | None:
    parts: list[str] = []
    if notification.analysis_date:
        parts.append(t.analysis_date(notification.analysis_date, notification.previous_analysis_date))
    if notification.total:
        parts.append(t.counts(notification.total, notification.failed))
    if notification.batch_status and notification.batch_status != "completed":
        parts.append(t.status(t.status_name(notification.batch_status)))
    return t.separator.join(parts) or None


def _ranked(heading: str, rows: list[RankedRow], t: Texts) -> Section:
    cells = tuple(_cells(row, t) for row in rows)
    return Section(heading, tuple(_line(c, t) for c in cells), cells)


def _cells(row: RankedRow, t: Texts) -> tuple[str, ...]:
    call = t.action(row.action) if row.action else t.status_name(row.status)
    return (
        str(row.rank),
        row.symbol,
        call,
        score_text(row.score),
        percent_text(row.position_percent),
        share_text(row.confidence),
    )


def _line(cells: tuple[str, ...], t: Texts) -> str:
    rank, symbol, call, score, position, confidence = cells
    figures = t.separator.join((f"{t.score} {score}", f"{t.position} {position}", f"{t.confidence} {confidence}"))
    return f"{rank}. {symbol} {call}{t.separator}{figures}"
