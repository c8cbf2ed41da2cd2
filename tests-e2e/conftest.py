"""End-to-end test hooks: the browser tests (marker ``browser``) are counted, and the count is printed at the end
of the run — how many ran, passed, failed or were skipped (and why: no Chromium)."""

from __future__ import annotations

from typing import Any

import pytest

_BROWSER: dict[str, list[str]] = {"passed": [], "failed": [], "skipped": []}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "browser" not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _BROWSER[report.outcome].append(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    ran = len(_BROWSER["passed"]) + len(_BROWSER["failed"])
    if ran or _BROWSER["skipped"]:
        terminalreporter.write_line(
            f"console browser tests: {ran} ran ({len(_BROWSER['passed'])} passed, {len(_BROWSER['failed'])} failed), "
            f"{len(_BROWSER['skipped'])} skipped"
        )


@pytest.fixture(scope="session")
def rules_grid() -> dict[str, Any]:
    """The rules pipeline in-process over every snapshot symbol × ``in_process_grid.DATES`` × zh/en, made once."""
    from in_process_grid import grid

    return grid()
