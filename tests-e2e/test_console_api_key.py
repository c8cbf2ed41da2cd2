"""The console with ``AUTH_MODE=api_key``: it asks for a key, keeps it in the tab (sessionStorage), sends it as
``Authorization: Bearer`` — also for the event stream, read with fetch — and never in a URL; a 429 is said with
its wait. The coordinator and research only (rules engines): the debate and judge are not needed here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from console_browser import browser, needs_chromium, screenshot, watch
from playwright.sync_api import Browser

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import Stack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser, needs_chromium]

CLIENT_KEY = new_key()
SERVICE_KEY = new_key()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    common = {
        "AUTH_MODE": "api_key",
        "API_KEYS": f"analyst={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service",
        "RATE_LIMIT_WRITES": "1/minute",
        "RESEARCH_DAILY_QUOTA": "0",
    }
    coordinator = {"SERVICE_API_KEY": SERVICE_KEY, "HTTP_MAX_ATTEMPTS": "1"}
    with running_stack(
        tmp_path_factory.mktemp("console-keys"),
        common_env=common,
        per_service_env={"coordinator": coordinator},
        only=("research", "coordinator"),
    ) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from browser()


def test_the_key_is_asked_for_kept_in_the_tab_sent_as_bearer_and_never_in_a_url(
    chromium: Browser, stack: Stack
) -> None:
    origin = stack["coordinator"].url
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    seen = watch(page, origin)
    authorization: list[str] = []
    page.on("request", lambda r: authorization.append(r.headers.get("authorization", "")) if "/api/" in r.url else None)
    try:
        page.goto(f"{origin}/console/")
        page.wait_for_selector("#key-dialog[open]")
        assert page.inner_text("#new-error") == "An API key is needed."
        screenshot(page, "api-key-prompt", full_page=False)
        page.fill("#key-input", CLIENT_KEY)
        page.click("#key-save")
        page.wait_for_selector("#universe-list option", state="attached")
        assert page.evaluate("sessionStorage.getItem('console.apiKey')") == CLIENT_KEY
        assert page.evaluate("localStorage.getItem('console.apiKey')") is None

        page.click("#submit-research")
        page.wait_for_url("**/console/#/live/*", timeout=30_000)
        session_id = page.url.rsplit("/", 1)[1]
        # The stream, read with the key, to its end: then the live page opens the session page.
        page.wait_for_url(f"**/console/#/session/{session_id}", timeout=60_000)
        shown = page.evaluate(f"JSON.parse(sessionStorage.getItem('console.events.{session_id}') || '[]').length")
        assert shown >= 3

        page.goto(f"{origin}/console/#/new")
        page.wait_for_selector("#universe-list option", state="attached")
        page.click("#submit-research")
        page.wait_for_selector("#new-error:not(:empty)")
        message = page.inner_text("#new-error")
        assert message.startswith("Too many requests: wait ")
        assert message.endswith(" s and try again.")

        assert f"Bearer {CLIENT_KEY}" in authorization
        assert [url for url in seen["requests"] if CLIENT_KEY in url] == []
        assert seen["foreign"] == []
    finally:
        context.close()

    other_tab = chromium.new_context()
    try:
        page = other_tab.new_page()
        page.goto(f"{origin}/console/#/history")
        page.wait_for_selector("#key-dialog[open]")  # a new tab knows no key
    finally:
        other_tab.close()
