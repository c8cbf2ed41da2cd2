"""History and audit: list stored research sessions (filtered, newest first, paginated) and read one."""

from __future__ import annotations

from datetime import date

from coordinator.application.dtos.session_page import SessionPageView
from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.session import ResearchSession, SessionStatus
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.session_repository import ISessionRepository
from shared_contracts.errors import InvalidDateRangeError
from shared_contracts.symbols import canonical_symbol

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_OFFSET = 2**63 - 1
"""The largest offset SQLite and PostgreSQL take (a signed 64-bit integer); a larger one is a client mistake."""


class SessionQueryService:
    def __init__(self, sessions: ISessionRepository) -> None:
        self._sessions = sessions

    async def list_sessions(
        self,
        viewer: Viewer,
        *,
        symbol: str | None = None,
        status: SessionStatus | None = None,
        days: tuple[date | None, date | None] = (None, None),
        limit: int = DEFAULT_PAGE_SIZE,
        offset: int = 0,
    ) -> SessionPageView:
        """A page of at most ``MAX_PAGE_SIZE`` sessions (a larger ``limit`` is capped, and the page
        says so); ``symbol`` matches in its canonical spelling (``700.hk`` finds ``0700.HK``) and
        case-insensitively, a blank one is no filter; ``days``: the first and last analysis date wanted (either
        may be None). Raises ``InvalidDateRangeError`` when the first is after the last."""
        first, last = days
        if first is not None and last is not None and first > last:
            raise InvalidDateRangeError(
                f"analysis_date_from {first.isoformat()} is after analysis_date_to {last.isoformat()}"
            )
        limit = max(1, min(limit, MAX_PAGE_SIZE))
        offset = max(0, offset)
        wanted = canonical_symbol(symbol) if symbol and symbol.strip() else None
        if wanted is not None and not wanted.isprintable():  # no stored symbol is (and PostgreSQL refuses NUL)
            return SessionPageView(items=[], total=0, limit=limit, offset=offset)
        items, total = await self._sessions.list(
            symbol=wanted, status=status, days=days, limit=limit, offset=offset, client_id=viewer.only_client
        )
        return SessionPageView(items=items, total=total, limit=limit, offset=offset)

    async def get_session(self, session_id: str, viewer: Viewer) -> ResearchSession:
        """Another client's session is not found, as one that does not exist, by the same work (the store compares
        the owner in its query)."""
        session = await self._sessions.get(session_id, client_id=viewer.only_client)
        if session is None:
            raise SessionNotFoundError(session_id)
        return session
