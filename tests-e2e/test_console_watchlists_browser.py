"""The console's watchlists and batch pages in a real browser (Debian's Chromium through Playwright) against the real
stack (rules engines, the offline snapshot): a watchlist is created in the Watchlists page (an unknown symbol named
in the API's words first), run from its page, and its batch's ranked table read — a row per symbol, sorted by score
best first, the actions in words, a header click re-sorting it — and downloaded as CSV (the header, a row per
symbol, UTF-8 with a byte-order mark). A second run shows the change since the first. A channel is added and
tested, a schedule added with it (its next slots listed) and deleted. In Chinese the table has no English word but
the symbols: actions are 买入/卖出/持有. Screenshots: test-artifacts/console/."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from console_browser import browser, needs_chromium, screenshot, serious_axe_violations, watch
from playwright.sync_api import Browser, Page

from service_kit.stack.launcher import Stack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser, needs_chromium]

DAY = "2025-06-30"
NAME = "Core holdings"
SIZE = 6
"""Symbols in the watchlist: the first of the research universe."""
ACTIONS_EN = {"BUY", "SELL", "HOLD"}
ACTIONS_ZH = {"买入", "卖出", "持有"}
CSV_HEADER_START = ["Rank", "Symbol", "Action", "Score"]
CSV_HEADER_END = ["Universe rank", "Position %", "Confidence", "Session"]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    outbox = {"coordinator": {"DELIVERY_MAX_ATTEMPTS": "1", "DELIVERY_POLL_SECONDS": "0.2"}}
    with running_stack(tmp_path_factory.mktemp("console-watchlists"), per_service_env=outbox) as running:
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from browser()


@pytest.fixture(scope="module")
def state() -> dict[str, str]:
    """What one test leaves for the next (they run in file order on one stack)."""
    return {}


@pytest.fixture(scope="module")
def symbols(stack: Stack) -> list[str]:
    universe = httpx.get(f"{api(stack)}/universe", timeout=30).json()
    return [s["symbol"] for s in universe["symbols"]][:SIZE]


def api(stack: Stack) -> str:
    return f"{stack['coordinator'].url}/api/v1/coordinator"


def console(stack: Stack, route: str = "") -> str:
    return f"{stack['coordinator'].url}/console/{route}"


def open_page(chromium: Browser, stack: Stack, language: str = "en") -> Page:
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True, locale="en-US")
    context.add_init_script(f"localStorage.setItem('console.lang', '{language}')")
    page = context.new_page()
    page.seen = watch(page, stack["coordinator"].url)  # type: ignore[attr-defined]
    page.on("dialog", lambda dialog: dialog.accept())  # the delete buttons ask first
    return page


@pytest.fixture
def page(chromium: Browser, stack: Stack) -> Iterator[Page]:
    page = open_page(chromium, stack)
    yield page
    seen = page.seen  # type: ignore[attr-defined]
    page.context.close()
    assert seen["foreign"] == [], "the console asked another origin"
    assert not [e for e in seen["errors"] if "Content Security Policy" in e or "Refused to" in e], seen["errors"]


def ranked_rows(page: Page) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = page.eval_on_selector_all(
        "#batch-table tbody tr",
        """els => els.map(e => ({symbol: e.dataset.symbol, score: e.dataset.score, action: e.dataset.action,
            shown: e.querySelector('td[data-column="action"]').textContent,
            change: e.querySelector('td[data-column="change"]')?.textContent ?? null}))""",
    )
    return rows


def run_from_its_page(page: Page) -> str:
    """Run the open watchlist as of DAY; wait for its batch to end and its contributions to be drawn."""
    page.fill("#run-date", DAY)
    page.click("#run-watchlist")
    page.wait_for_url("**/console/#/batches/*", timeout=30_000)
    page.wait_for_selector('main .view[data-finished="true"]', timeout=120_000)
    page.wait_for_selector("#batch-table .contrib-term", timeout=30_000)
    return page.url.rsplit("/", 1)[1]


def test_a_watchlist_is_created_run_and_its_ranked_table_read_and_downloaded(
    page: Page, stack: Stack, symbols: list[str], state: dict[str, str]
) -> None:
    page.goto(console(stack, "#/watchlists"))
    page.wait_for_selector("#watchlists-empty")
    page.fill("#new-watchlist-name", NAME)
    page.fill("#new-watchlist-symbols", ", ".join(symbols[:3]) + "\n" + " ".join([*symbols[3:], "999999.SZ"]))
    page.click("#new-watchlist-submit")
    page.wait_for_selector("#new-watchlist-error:not(:empty)")
    assert page.inner_text("#new-watchlist-error") == "Not in the research universe: 999999.SZ"

    page.fill("#new-watchlist-symbols", ", ".join(symbols[:3]) + "\n" + " ".join(symbols[3:]))
    page.click("#new-watchlist-submit")
    page.wait_for_url("**/console/#/watchlists/*")
    page.wait_for_selector("#run-watchlist")
    state["watchlist_id"] = page.url.rsplit("/", 1)[1]
    assert page.inner_text("#watchlist-symbols") == f"{SIZE} symbols: {', '.join(symbols)}"

    batch_id = run_from_its_page(page)
    state["batch_id"] = batch_id
    view = httpx.get(f"{api(stack)}/batches/{batch_id}", timeout=30).json()
    assert view["watchlist_id"] == state["watchlist_id"]
    rows = ranked_rows(page)
    assert [r["symbol"] for r in rows] == [item["symbol"] for item in view["items"]]
    assert sorted(r["symbol"] for r in rows) == sorted(symbols)
    scores = [float(r["score"]) for r in rows if r["score"]]
    assert scores
    assert scores == sorted(scores, reverse=True), "best first"
    assert {r["shown"] for r in rows if r["action"]} <= ACTIONS_EN
    assert all(r["shown"] == r["action"] for r in rows if r["action"])
    assert page.inner_text("#batch-watchlist") == f"Watchlist: {NAME}"
    assert page.locator("#batch-table tbody svg.sparkline[data-closes='60']").count() >= 1
    screenshot(page, "batch-1280")
    assert serious_axe_violations(page) == []

    # A header sorts: score from the worst up, then back.
    page.click('th[data-column="score"] button')
    page.click('th[data-column="score"] button')
    assert page.get_attribute('th[data-column="score"]', "aria-sort") == "ascending"
    ascending = [float(r["score"]) for r in ranked_rows(page) if r["score"]]
    assert ascending == sorted(scores)

    with page.expect_download() as download:
        page.click("#export-csv")
    raw = Path(download.value.path()).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark"
    table = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    header, lines = table[0], table[1:]
    assert header[:4] == CSV_HEADER_START
    assert header[-4:] == CSV_HEADER_END
    assert header[4:-4]
    assert all(name.startswith("Contribution: ") for name in header[4:-4])
    assert len(lines) == SIZE
    assert [float(line[3]) for line in lines if line[3]] == ascending, "the order shown, figures unformatted"
    by_symbol = {item["symbol"]: item for item in view["items"]}
    for line in lines:
        item = by_symbol[line[1]]
        assert line[-1] == item["session_id"]
        if item["score"] is not None:
            assert float(line[3]) == pytest.approx(item["score"])
            voting = [float(v) for v in line[4:-4] if v]
            assert sum(voting) == pytest.approx(item["score"], abs=1e-4), "the contributions add up to the score"


def test_a_second_run_shows_the_change_since_the_first(page: Page, stack: Stack, state: dict[str, str]) -> None:
    page.goto(console(stack, "#/watchlists"))
    page.wait_for_selector(f'#watchlists-table tr[data-name="{NAME}"]')
    page.click(f'#watchlists-table tr[data-name="{NAME}"] a >> nth=0')
    page.wait_for_selector("#run-watchlist")
    assert page.locator(f'#watchlist-runs-table tr[data-batch="{state["batch_id"]}"]').count() == 1
    second = run_from_its_page(page)
    view = httpx.get(f"{api(stack)}/batches/{second}", timeout=30).json()
    assert view["previous_batch_id"] == state["batch_id"]
    page.wait_for_selector("#batch-previous")
    rows = ranked_rows(page)
    assert {r["change"] for r in rows if r["action"]} == {"unchanged"}, "the same day twice: the same calls"
    state["second_batch_id"] = second


def test_a_channel_is_tested_and_a_schedule_lists_its_next_runs(
    page: Page, stack: Stack, state: dict[str, str]
) -> None:
    page.goto(console(stack, "#/watchlists"))
    page.wait_for_selector("#new-channel")
    page.select_option("#channel-kind", "webhook")
    page.fill("#channel-target", "https://receiver.invalid/hooks/research")
    page.fill("#channel-name", "Desk")
    page.click("#channel-submit")
    page.wait_for_selector("#channels-table tbody tr")
    assert page.inner_text("#channel-secret-once").startswith("The webhook's signing secret, shown this once: whsec_")
    page.click("[data-test-channel]")
    result = page.wait_for_selector(".test-result[data-delivered]", timeout=60_000)
    assert result is not None
    assert result.get_attribute("data-delivered") == "false"
    assert result.inner_text().startswith("Not delivered: ")

    page.goto(console(stack, f"#/watchlists/{state['watchlist_id']}"))
    page.wait_for_selector("#new-schedule")
    page.fill("#schedule-cron", "0 18 * * 1-5")
    assert page.input_value("#schedule-timezone") == "Asia/Shanghai"
    assert page.is_checked("#schedule-trading-days")
    page.select_option("#schedule-channels", label="Desk")
    page.click("#schedule-submit")
    page.wait_for_selector("#schedules-list .schedule")
    assert page.locator("#schedules-list .next-fires li").count() == 5
    assert "Desk" in page.inner_text("#schedules-list .schedule")
    screenshot(page, "watchlist-1280")
    assert serious_axe_violations(page) == []
    page.click("[data-delete-schedule]")
    page.wait_for_selector("#schedules-empty")


def test_a_notification_that_could_not_be_delivered_is_listed_and_retried(
    page: Page, stack: Stack, state: dict[str, str]
) -> None:
    """A webhook to a port nothing listens on, one attempt allowed: the run's notification ends failed, the
    watchlists page lists it with its error, and Retry sends it again (the API's retry, answered 202)."""
    closed = "http://127.0.0.1:9/hook"  # the discard port: connection refused
    channel = httpx.post(f"{api(stack)}/channels", json={"kind": "webhook", "target": closed}, timeout=30).json()
    run = httpx.post(
        f"{api(stack)}/watchlists/{state['watchlist_id']}/run", json={"channels": [channel["channel_id"]]}, timeout=30
    )
    assert run.status_code == 202, run.text

    def failed() -> list[dict[str, object]]:
        items: list[dict[str, object]] = httpx.get(f"{api(stack)}/deliveries?status=failed", timeout=30).json()["items"]
        return items

    for _ in range(600):
        if failed():
            break
        page.wait_for_timeout(100)
    (delivery,) = failed()
    page.goto(console(stack, "#/watchlists"))
    row = page.wait_for_selector(f"#deliveries-table tr[data-delivery='{delivery['delivery_id']}']")
    assert row is not None
    assert row.get_attribute("data-status") == "failed"
    assert "127.0.0.1" in row.inner_text()  # the error names the host
    with page.expect_response(lambda r: r.url.endswith(f"/deliveries/{delivery['delivery_id']}/retry")) as answer:
        page.click(f"[data-retry-delivery='{delivery['delivery_id']}']")
    assert answer.value.status == 202
    screenshot(page, "deliveries-1280", element="#deliveries")


def test_in_chinese_the_ranked_table_has_no_english_word_but_the_symbols(
    chromium: Browser, stack: Stack, state: dict[str, str]
) -> None:
    page = open_page(chromium, stack, "zh")
    try:
        page.goto(console(stack, f"#/batches/{state['second_batch_id']}"))
        page.wait_for_selector("#batch-table .contrib-term", timeout=30_000)
        rows = ranked_rows(page)
        assert {r["shown"] for r in rows if r["action"]} <= ACTIONS_ZH
        table = page.inner_text("#batch-table")
        for row in rows:
            table = table.replace(row["symbol"], "")
        assert re.findall(r"[A-Za-z]+", table) == [], "an English word in the Chinese table"
        assert re.findall("BUY|SELL|HOLD", page.inner_text("main")) == []
        assert page.inner_text("h1") == f"批次，分析日期 {DAY}"
        screenshot(page, "batch-zh")
        assert serious_axe_violations(page) == []
    finally:
        page.context.close()
