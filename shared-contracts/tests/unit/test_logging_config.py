"""LOG_LEVEL governs uvicorn's loggers too, and uvicorn's --no-access-log stays off."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog

from shared_contracts.service.logging import configure_logging

UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved_root = (root.handlers[:], root.level)
    saved_structlog = structlog.get_config()
    saved = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level, logging.getLogger(n).propagate)
        for n in UVICORN
    }
    yield
    structlog.configure(**saved_structlog)
    root.handlers[:], root.level = saved_root[0], saved_root[1]
    for name, (handlers, level, propagate) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:], logger.propagate = handlers, propagate
        logger.setLevel(level)


def _uvicorn_defaults(*, access_log: bool) -> None:
    """What uvicorn's own logging setup leaves before the app factory runs."""
    for name in UVICORN:
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        logger.handlers[:] = [logging.NullHandler()]
        logger.propagate = name == "uvicorn.error"
    if not access_log:
        access = logging.getLogger("uvicorn.access")
        access.handlers[:] = []
        access.propagate = False


def test_access_lines_follow_log_level() -> None:
    _uvicorn_defaults(access_log=True)
    configure_logging("WARNING", service="t")
    access = logging.getLogger("uvicorn.access")
    assert access.hasHandlers()
    assert not access.isEnabledFor(logging.INFO)
    assert access.isEnabledFor(logging.WARNING)

    configure_logging("INFO", service="t")
    assert access.isEnabledFor(logging.INFO)


def test_no_access_log_stays_off() -> None:
    _uvicorn_defaults(access_log=False)
    configure_logging("INFO", service="t")
    assert not logging.getLogger("uvicorn.access").hasHandlers()  # uvicorn then skips access lines entirely
    assert logging.getLogger("uvicorn.error").isEnabledFor(logging.INFO)


def test_events_below_log_level_are_dropped_before_the_processors_run(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("WARNING", service="t")
    ran: list[str] = []

    def spy(_logger: object, method: str, event: structlog.types.EventDict) -> structlog.types.EventDict:
        ran.append(method)
        return event

    processors = structlog.get_config()["processors"]
    structlog.configure(processors=[processors[0], spy, *processors[1:]])
    log = structlog.get_logger("t")
    log.info("quiet")
    log.warning("loud")
    assert ran == ["warning"]
    assert "loud" in capsys.readouterr().err
