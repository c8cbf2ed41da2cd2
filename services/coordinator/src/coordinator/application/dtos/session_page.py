"""A page of stored sessions, as the history use case returns it."""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.domain.model.session import ResearchSession


@dataclass(frozen=True)
class SessionPageView:
    items: list[ResearchSession]
    total: int
    limit: int
    offset: int
