"""Whose sessions a request may see: its client's own, or every client's (an ``admin`` key)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Viewer:
    client_id: str
    sees_all: bool = False

    @property
    def only_client(self) -> str | None:
        """The client to filter stored sessions by; None for a viewer who sees all."""
        return None if self.sees_all else self.client_id
