"""Fixtures shared by the kit's unit tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog

from service_kit.logging import configure_logging


@pytest.fixture
def json_debug_logs() -> Iterator[None]:
    """The services' JSON logging at DEBUG for one test, then the previous configuration back."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, structlog.get_config())
    configure_logging("DEBUG", json=True, service="t")
    yield
    root.handlers[:], level, config = saved
    root.setLevel(level)
    structlog.configure(**config)
