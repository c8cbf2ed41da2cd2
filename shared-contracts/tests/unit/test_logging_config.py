"""LOG_LEVEL governs uvicorn's loggers too, and uvicorn's --no-access-log stays off."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from shared_contracts.service.logging import configure_logging

UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved_root = (root.handlers[:], root.level)
    saved = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level, logging.getLogger(n).propagate)
        for n in UVICORN
    }
    yield
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
