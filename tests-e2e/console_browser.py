"""The console's browser tests' tools: Debian's Chromium driven by Playwright for Python, the run's count, where
screenshots go (``test-artifacts/console/``), and the axe-core check.

Chromium is the distribution's (``apt-get install chromium``; ``.ci/run`` installs it, best effort), never a
``playwright install`` download: without it (or without Playwright) the browser tests skip and say why."""

from __future__ import annotations

import json
import mimetypes
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO_ROOT / "test-artifacts" / "console"
DOCS_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-session.png"
DOCS_CONTRIBUTIONS_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-contributions.png"
DOCS_HISTORY_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-history.png"
DOCS_SCORECARD_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-scorecard.png"
STATIC = REPO_ROOT / "services/coordinator/src/coordinator/presentation/console/static"
STATIC_ORIGIN = "http://console.test"
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
_CANDIDATES = (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium"))
CHROMIUM = next((p for p in _CANDIDATES if p and Path(p).exists()), None)

try:
    from playwright.sync_api import Browser, Page, Route, sync_playwright
except ImportError:  # pragma: no cover - the dev group has it
    sync_playwright = None  # type: ignore[assignment]

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or sync_playwright is None,
    reason="no Chromium at /usr/bin/chromium (apt-get install chromium) or no Playwright: browser tests skipped",
)


def browser() -> Iterator[Browser]:
    """One headless Chromium for a test module."""
    assert sync_playwright is not None
    assert CHROMIUM is not None
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


def watch(page: Page, origin: str) -> dict[str, list[str]]:
    """Record on ``page``: every request's URL, requests to another origin, console errors and page errors."""
    seen: dict[str, list[str]] = {"requests": [], "foreign": [], "errors": []}

    def on_request(request: Any) -> None:
        seen["requests"].append(request.url)
        if not request.url.startswith((origin, "data:", "blob:")):
            seen["foreign"].append(request.url)

    page.on("request", on_request)
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    return seen


def screenshot(
    page: Page, name: str, *, full_page: bool = True, element: str | None = None, docs: Path | None = None
) -> Path:
    """The page (or only the ``element`` a selector names) as test-artifacts/console/<name>.png; also copied to
    ``docs`` when UPDATE_DOCS_SCREENSHOTS=1."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if element is not None:
        page.locator(element).screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=full_page)
    if docs is not None and os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
        docs.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, docs)
    return path


def serious_axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is (axe evaluated through the DevTools
    protocol, which the page's CSP does not govern)."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => JSON.stringify(await axe.run(document, {resultTypes: ['violations']}))")
    violations: list[dict[str, Any]] = json.loads(result)["violations"]
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def serve_static(route: Route) -> None:
    """The console's files on a made-up origin (``STATIC_ORIGIN``, nothing started); any other path is a blank page
    to import modules from (``context.route(f"{STATIC_ORIGIN}/**", serve_static)``)."""
    path = route.request.url.removeprefix(STATIC_ORIGIN).split("?")[0].lstrip("/")
    file = (STATIC / path).resolve()
    if path and file.is_file() and file.is_relative_to(STATIC.resolve()):
        kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
        route.fulfill(status=200, body=file.read_bytes(), content_type=kind)
    else:
        route.fulfill(status=200, body="<!doctype html><title>console modules</title>", content_type="text/html")


def static_page(chromium: Browser) -> Iterator[Page]:
    """A page on ``STATIC_ORIGIN`` that can import the console's modules (a fixture's body: ``yield from``)."""
    context = chromium.new_context()
    context.route(f"{STATIC_ORIGIN}/**", serve_static)
    page = context.new_page()
    page.goto(f"{STATIC_ORIGIN}/blank")
    yield page
    context.close()


ALLOWED_LATIN = frozenset({"API", "Markdown", "PDF", "TradingView", "Lightweight", "Charts", "Apache", "Brier"})
"""Latin words a Chinese page may show besides symbols: names (TradingView Lightweight Charts, Apache-2.0, the Brier
score), formats (Markdown, PDF) and API; the scorecard's method is the path docs/evaluation.md."""
_LATIN = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
_PATHS = re.compile(r"docs/[\w./-]+\.md")


def english_words(text: str, symbols: tuple[str, ...] = ()) -> list[str]:
    """The Latin-script words of ``text`` (two letters or more) that are not a symbol, a path or an allowed name."""
    for symbol in sorted(symbols, key=len, reverse=True):
        text = text.replace(symbol, " ")
    text = _PATHS.sub(" ", text)
    return [w for w in _LATIN.findall(text) if len(w) > 1 and w not in ALLOWED_LATIN]
