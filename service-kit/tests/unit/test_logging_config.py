"""LOG_LEVEL governs uvicorn's loggers too, uvicorn's --no-access-log stays off, the HTTP clients'
per-request lines are kept for DEBUG, and a line logged in a span names its trace and span."""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
from collections.abc import Iterator

import pytest
import structlog
from contract_testkit import recording_spans
from opentelemetry import trace

from service_kit.logging import PER_REQUEST_LOGGERS, configure_logging, flush_logs

UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")
RESTORED = (*UVICORN, *PER_REQUEST_LOGGERS)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved_root = (root.handlers[:], root.level)
    saved_structlog = structlog.get_config()
    saved = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level, logging.getLogger(n).propagate)
        for n in RESTORED
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
    flush_logs()
    assert "loud" in capsys.readouterr().err


@pytest.mark.parametrize("client", PER_REQUEST_LOGGERS)
def test_http_clients_request_lines_only_at_debug(client: str, capsys: pytest.CaptureFixture[str]) -> None:
    request_line = 'HTTP Request: POST http://research:8001/api/v1/research/experts/x "HTTP/1.1 200 OK"'

    configure_logging("INFO", service="t")
    logging.getLogger(client).info(request_line)
    logging.getLogger(client).warning("client warning")
    structlog.get_logger("t").info("expert_done")
    flush_logs()
    err = capsys.readouterr().err
    assert "HTTP Request" not in err
    assert "client warning" in err
    assert "expert_done" in err

    configure_logging("ERROR", service="t")
    logging.getLogger(client).warning("client warning")
    flush_logs()
    assert "client warning" not in capsys.readouterr().err

    configure_logging("DEBUG", service="t")
    logging.getLogger(client).info(request_line)
    flush_logs()
    assert "HTTP Request" in capsys.readouterr().err


def test_lines_are_written_by_a_thread_of_their_own_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("INFO", service="t")
    log = structlog.get_logger("t")
    for n in range(200):
        log.info("numbered", n=n)
    flush_logs()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [line["n"] for line in lines] == list(range(200))
    assert {line["service"] for line in lines} == {"t"}


def _log_writers() -> list[threading.Thread]:
    # QueueListener's thread runs its ``_monitor``; Python names such a thread "Thread-N (_monitor)".
    return [t for t in threading.enumerate() if t.name.endswith("(_monitor)")]


def test_the_writer_thread_is_replaced_not_added_on_reconfiguration() -> None:
    configure_logging("INFO", service="t")
    [first] = _log_writers()
    configure_logging("WARNING", service="t")
    configure_logging("INFO", service="t")
    [current] = _log_writers()
    assert current is not first
    assert not first.is_alive()


def test_a_line_goes_to_stderr_as_it_is_when_written(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure_logging("INFO", service="t")
    monkeypatch.setattr(sys, "stderr", second)
    first.close()  # as pytest closes a finished test's capture
    structlog.get_logger("t").info("late")
    flush_logs()
    assert '"event": "late"' in second.getvalue()


def test_a_line_logged_in_a_span_carries_its_trace_and_span_ids(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("INFO", service="t")
    log = structlog.get_logger("t")
    with recording_spans():
        with trace.get_tracer("t").start_as_current_span("work") as span:
            log.info("inside")
            logging.getLogger("stdlib").warning("inside too")  # the standard library's lines as well
        log.info("outside")
    flush_logs()
    inside, inside_too, outside = (json.loads(line) for line in capsys.readouterr().err.splitlines())
    context = span.get_span_context()
    for line in (inside, inside_too):
        assert line["trace_id"] == format(context.trace_id, "032x")
        assert line["span_id"] == format(context.span_id, "016x")
    assert "trace_id" not in outside
    assert "span_id" not in outside
