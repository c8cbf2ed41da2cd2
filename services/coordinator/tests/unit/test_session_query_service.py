"""History queries: page size capped, blank filters ignored, unknown ids are a domain 404."""

from __future__ import annotations

import pytest
from coordinator_fakes import InMemorySessionRepository
from coordinator_persistence_fakes import make_session

from coordinator.application.session_query_service import MAX_PAGE_SIZE, SessionQueryService
from coordinator.domain.exceptions import SessionNotFoundError


async def test_the_page_size_is_capped_and_the_page_says_so() -> None:
    repo = InMemorySessionRepository()
    for minute in range(MAX_PAGE_SIZE + 5):
        s = make_session(minutes=minute)
        repo.sessions[s.session_id] = s

    page = await SessionQueryService(repo).list_sessions(limit=10_000)

    assert page.limit == MAX_PAGE_SIZE
    assert len(page.items) == MAX_PAGE_SIZE
    assert page.total == MAX_PAGE_SIZE + 5


async def test_a_blank_symbol_is_no_filter() -> None:
    repo = InMemorySessionRepository()
    for symbol in ("600519.SH", "000001.SZ"):
        s = make_session(symbol=symbol)
        repo.sessions[s.session_id] = s

    page = await SessionQueryService(repo).list_sessions(symbol="   ")

    assert page.total == 2


async def test_an_unknown_session_is_not_found() -> None:
    with pytest.raises(SessionNotFoundError) as caught:
        await SessionQueryService(InMemorySessionRepository()).get_session("nope")
    assert caught.value.code == "session_not_found"
