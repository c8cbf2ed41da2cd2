"""What a notification says, before any channel formats it: a watchlist's run ended (its ranked table's top
and bottom, what changed since the list's previous run, a link to the console), or a channel's test.

``Notification.to_json()`` is the body a webhook receives as ``data`` and what the outbox stores, so that every
attempt of a delivery sends the same message.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

NotificationType = Literal["watchlist.run.completed", "channel.test"]
ChangeKind = Literal["new_buy", "new_sell", "flip", "stop_hit", "target_hit", "dropped"]
TABLE_ROWS = 5
"""Rows of the ranked table a message shows at each end (top and bottom)."""


@dataclass(frozen=True)
class RankedRow:
    """One row of the ranked table (``rank`` 1 is the best score)."""

    rank: int
    symbol: str
    session_id: str
    status: str
    action: str | None = None
    score: float | None = None
    universe_rank: float | None = None
    position_percent: float | None = None
    confidence: float | None = None


def table_ends(rows: list[RankedRow]) -> tuple[list[RankedRow], list[RankedRow]]:
    """The rows a message shows: all of them as ``top`` when they are few, else the first and last ``TABLE_ROWS``.

    >>> [len(part) for part in table_ends([RankedRow(i, "X", "s", "completed") for i in range(1, 13)])]
    [5, 5]
    """
    if len(rows) <= 2 * TABLE_ROWS:
        return list(rows), []
    return rows[:TABLE_ROWS], rows[-TABLE_ROWS:]


@dataclass(frozen=True)
class Change:
    """What changed for one symbol since the list's previous run.

    ``new_buy``/``new_sell``: BUY/SELL now, not before (``previous``: the earlier action or None); ``flip``: BUY
    then SELL or SELL then BUY; ``stop_hit``/``target_hit``: the previous run's call touched its stop or target
    (``price``) on ``day``, between the two runs' analysis dates; ``dropped``: no verdict now, one before.
    """

    kind: ChangeKind
    symbol: str
    action: str | None = None
    previous: str | None = None
    price: float | None = None
    day: str | None = None


@dataclass(frozen=True)
class Notification:
    type: NotificationType
    title: str
    """One line, in the channel's language (e.g. ``Watchlist Core: 12 researched as of 2025-09-30``)."""
    language: Literal["zh", "en"] = "zh"
    watchlist_id: str | None = None
    watchlist_name: str | None = None
    batch_id: str | None = None
    batch_status: str | None = None
    analysis_date: str | None = None
    previous_analysis_date: str | None = None
    """The analysis date of the list's previous run (None: this is its first)."""
    total: int = 0
    failed: int = 0
    top: list[RankedRow] = field(default_factory=list)
    """The ranked table's first rows (every row when it has at most twice ``TABLE_ROWS``)."""
    bottom: list[RankedRow] = field(default_factory=list)
    """Its last ``TABLE_ROWS`` rows, the worst last, when it has more than twice ``TABLE_ROWS``."""
    changes: list[Change] = field(default_factory=list)
    link: str | None = None
    """The batch in the console (absolute when CONSOLE_BASE_URL is set)."""
    created_at: str | None = None
    """When it was composed (ISO 8601, UTC, ``Z``): the event's time, the same on every attempt."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Notification:
        top = [RankedRow(**r) for r in data.get("top", [])]
        bottom = [RankedRow(**r) for r in data.get("bottom", [])]
        changes = [Change(**c) for c in data.get("changes", [])]
        plain: dict[str, Any] = {k: v for k, v in data.items() if k not in ("top", "bottom", "changes")}
        return cls(**plain, top=top, bottom=bottom, changes=changes)
