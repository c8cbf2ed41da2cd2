"""A browser's own ``EventSource`` (Debian's Chromium through Playwright, any third-party page would use one) on the
event stream of a research and of a batch that have ended, against the real stack (rules engines): the terminal
event arrives once, the reconnection the browser makes after the server closes is answered ``204 No Content`` and
the EventSource stops (``readyState`` CLOSED), with no reconnection loop for as long as the page stays open."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from console_browser import browser, needs_chromium
from playwright.sync_api import Browser

from service_kit.stack.launcher import Stack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser, needs_chromium]

API = "/api/v1/coordinator"
WATCHED_SECONDS = 8.0
"""Long enough for Chromium to reconnect twice (it waits 3 s by default before each reconnection)."""
FOLLOW = """([url, terminal]) => {
  window.__told = { terminal: [], errors: 0, open: 0 };
  const source = new EventSource(url);
  window.__source = source;
  source.onopen = () => { window.__told.open += 1; };
  source.onerror = () => { window.__told.errors += 1; };
  for (const kind of terminal) source.addEventListener(kind, (e) => window.__told.terminal.push([kind, e.lastEventId]));
}"""
SESSION_ENDS = ["session.completed", "session.partial", "session.failed", "session.cancelled", "session.interrupted"]
BATCH_ENDS = ["batch.completed", "batch.partial", "batch.failed", "batch.cancelled"]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("event-source")) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from browser()


def follow_for_a_while(chromium: Browser, stack: Stack, path: str, terminal: list[str]) -> dict[str, Any]:
    """Open the console's origin, follow ``path`` with an EventSource for ``WATCHED_SECONDS``: what the page was
    told, the requests it made to the stream and the EventSource's final ``readyState``."""
    origin = stack["coordinator"].url
    context = chromium.new_context()
    try:
        page = context.new_page()
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url) if r.url.endswith(path) else None)
        page.goto(f"{origin}/console/")
        page.evaluate(FOLLOW, [f"{origin}{path}", terminal])
        time.sleep(WATCHED_SECONDS)
        told: dict[str, Any] = page.evaluate("window.__told")
        state = page.evaluate("window.__source.readyState")
    finally:
        context.close()
    return {**told, "requests": len(requests), "ready_state": state}


def test_an_event_source_on_a_finished_research_gets_the_end_once_and_stops(chromium: Browser, stack: Stack) -> None:
    research = httpx.post(
        f"{stack['coordinator'].url}{API}/research",
        json={"symbol": "600519.SH", "experts": ["technical_analyst"], "analysis_date": "2024-06-28"},
        timeout=120,
    ).raise_for_status()
    session_id = research.json()["session_id"]

    told = follow_for_a_while(chromium, stack, f"{API}/sessions/{session_id}/events", SESSION_ENDS)

    assert len(told["terminal"]) == 1, told
    assert told["requests"] == 2, told  # the stream, then one reconnection answered 204
    assert told["ready_state"] == 2, told  # CLOSED: the browser will not reconnect again


def test_an_event_source_on_a_finished_batch_gets_the_end_once_and_stops(chromium: Browser, stack: Stack) -> None:
    base = f"{stack['coordinator'].url}{API}/batches"
    body = {"symbols": ["600519.SH", "000001.SZ"], "analysis_date": "2024-06-28", "experts": ["technical_analyst"]}
    batch_id = httpx.post(base, json=body, timeout=30).raise_for_status().json()["batch_id"]
    deadline = time.monotonic() + 120
    while httpx.get(f"{base}/{batch_id}", timeout=30).json()["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the batch did not end"
        time.sleep(0.5)

    told = follow_for_a_while(chromium, stack, f"{API}/batches/{batch_id}/events", BATCH_ENDS)

    assert len(told["terminal"]) == 1, told
    assert told["terminal"][0][1] == "3"  # the batch's size + 1: past every progress event
    assert told["requests"] == 2, told
    assert told["ready_state"] == 2, told
