"""The console's browser tests' tools: Debian's Chromium driven by Playwright for Python, the run's count, where
screenshots go (``test-artifacts/console/``), and the axe-core check.

Chromium is the distribution's (``apt-get install chromium``; ``.ci/run`` installs it, best effort), never a
``playwright install`` download: without it (or without Playwright) the browser tests skip and say why."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO_ROOT / "test-artifacts" / "console"
DOCS_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-session.png"
DOCS_CONTRIBUTIONS_SCREENSHOT = REPO_ROOT / "docs" / "images" / "console-contributions.png"
AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
_CANDIDATES = (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium"))
CHROMIUM = next((p for p in _CANDIDATES if p and Path(p).exists()), None)

try:
    from playwright.sync_api import Browser, Page, sync_playwright
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


def screenshot(page: Page, name: str, *, full_page: bool = True, element: str | None = None) -> Path:
    """The page (or only the ``element`` a selector names) as test-artifacts/console/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if element is not None:
        page.locator(element).screenshot(path=str(path))
    else:
        page.screenshot(path=str(path), full_page=full_page)
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
