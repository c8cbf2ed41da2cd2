"""A session's events: what happened to it, stored append-only and numbered per session from 1."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from coordinator.domain.model.session import utcnow

TERMINAL_EVENTS = frozenset(
    {"session.completed", "session.partial", "session.failed", "session.cancelled", "session.interrupted"}
)
"""One of them ends every session's events."""


@dataclass(frozen=True)
class NewEvent:
    type: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionEvent:
    session_id: str
    seq: int
    type: str
    data: dict[str, Any]
    created_at: datetime = field(default_factory=utcnow)

    @property
    def terminal(self) -> bool:
        return self.type in TERMINAL_EVENTS


def terminal_event(status: str, **data: Any) -> NewEvent:
    return NewEvent(f"session.{status}", {"status": status, **data})
