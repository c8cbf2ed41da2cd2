"""History queries: page size capped, blank filters ignored, unknown ids are a domain 404, and a client sees
only its own sessions (an admin all)."""

from __future__ import annotations

import pytest
from coordinator_fakes import InMemorySessionRepository
from coordinator_persistence_fakes import make_session

from coordinator.application.services.session_query_service import MAX_PAGE_SIZE, SessionQueryService
from coordinator.domain.exceptions import SessionNotFoundError
from coordinator.domain.model.viewer import Viewer

LOCAL = Viewer("local", sees_all=True)


async def test_the_page_size_is_capped_and_the_page_says_so() -> None:
    repo = InMemorySessionRepository()
    for minute in range(MAX_PAGE_SIZE + 5):
        s = make_session(minutes=minute)
        repo.sessions[s.session_id] = s

    page = await SessionQueryService(repo).list_sessions(LOCAL, limit=10_000)

    assert page.limit == MAX_PAGE_SIZE
    assert len(page.items) == MAX_PAGE_SIZE
    assert page.total == MAX_PAGE_SIZE + 5


async def test_a_blank_symbol_is_no_filter() -> None:
    repo = InMemorySessionRepository()
    for symbol in ("600519.SH", "000001.SZ"):
        s = make_session(symbol=symbol)
        repo.sessions[s.session_id] = s

    page = await SessionQueryService(repo).list_sessions(LOCAL, symbol="   ")

    assert page.total == 2


async def test_an_unknown_session_is_not_found() -> None:
    with pytest.raises(SessionNotFoundError) as caught:
        await SessionQueryService(InMemorySessionRepository()).get_session("nope", LOCAL)
    assert caught.value.code == "session_not_found"


async def test_a_client_lists_and_reads_only_its_own_sessions() -> None:
    repo = InMemorySessionRepository()
    mine, theirs = make_session(minutes=1), make_session(minutes=2)
    mine.client_id, theirs.client_id = "alice", "bob"
    for s in (mine, theirs):
        await repo.create(s)
    queries = SessionQueryService(repo)

    page = await queries.list_sessions(Viewer("alice"))
    assert [s.session_id for s in page.items] == [mine.session_id]
    assert page.total == 1
    assert (await queries.get_session(mine.session_id, Viewer("alice"))).client_id == "alice"
    with pytest.raises(SessionNotFoundError):
        await queries.get_session(theirs.session_id, Viewer("alice"))
    admin = await queries.list_sessions(Viewer("ops", sees_all=True))
    assert {s.client_id for s in admin.items} == {"alice", "bob"}
