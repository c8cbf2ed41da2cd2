"""Structured JSON logs (structlog) for our own loggers and the standard library's (uvicorn's too).

A line is rendered where it is logged, and written to stderr by a thread of its own (the standard library's
``QueueHandler`` and ``QueueListener``), so a slow stream (a file on a busy disk, a full pipe) never holds up
the event loop. What is queued is written at exit, or at once by ``flush_logs()``.

Every line is redacted before it is rendered (``redact_event``): key-like substrings of every string in it
(the event, each field, a formatted exception) are masked by ``shared_contracts.redaction.redact_secrets``,
and so is the whole value of a field named like a credential (``api_key``, ``authorization``, ``password``).
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue
import sys
from typing import Any

import structlog
from opentelemetry import trace

from shared_contracts.redaction import REDACTED, redact_secrets

# Clients that log every request at INFO ("HTTP Request: POST ... 200 OK"). Our own events already record
# each call with more to say (expert, attempts, model, tokens, ms), so these lines are kept for DEBUG.
PER_REQUEST_LOGGERS = ("httpx", "httpx2")


def configure_logging(level: str = "INFO", *, json: bool = True, service: str | None = None) -> None:
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if service:
        shared.insert(1, _add_service(service))
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        # filter_by_level first: an event below LOG_LEVEL is dropped before any processor runs.
        processors=[structlog.stdlib.filter_by_level, *shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact_event,  # after the exception is formatted: its text is redacted too
            renderer,
        ],
    )
    root = logging.getLogger()
    root.handlers[:] = [_queued_to_stderr(formatter)]
    root.setLevel(level.upper())
    for name in PER_REQUEST_LOGGERS:
        logging.getLogger(name).setLevel(
            max(root.level, logging.WARNING) if root.level > logging.DEBUG else logging.DEBUG
        )
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        # uvicorn's --no-access-log leaves its access logger without handlers and not propagating.
        switched_off = name == "uvicorn.access" and not logger.handlers and not logger.propagate
        logger.handlers[:] = []
        logger.setLevel(logging.NOTSET)  # LOG_LEVEL governs uvicorn's loggers too (uvicorn sets INFO)
        logger.propagate = not switched_off


_CREDENTIAL_FIELDS = frozenset(
    {"api_key", "apikey", "x-api-key", "authorization", "password", "secret", "token", "access_token", "llm_api_key"}
)
_PLAIN = (int, float, bool, type(None))


def redact_event(_logger: object, _method: str, event_dict: structlog.types.EventDict) -> structlog.types.EventDict:
    """Every string of the event redacted (``redact_secrets``): the event, each field's value, the strings in
    dicts, lists and tuples, and the ``repr`` of any other object (what the renderers would write of it). A
    field named like a credential is masked whole. Numbers, booleans and None pass as they are."""
    for key, value in event_dict.items():
        if isinstance(value, _PLAIN):
            continue
        if isinstance(key, str) and key.lower() in _CREDENTIAL_FIELDS:
            event_dict[key] = REDACTED
        else:
            event_dict[key] = _redacted(value)
    return event_dict


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        return {k: REDACTED if str(k).lower() in _CREDENTIAL_FIELDS else _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_redacted(item) for item in value)
    return redact_secrets(repr(value))


def add_trace_ids(_logger: object, _method: str, event_dict: structlog.types.EventDict) -> structlog.types.EventDict:
    """``trace_id`` and ``span_id`` (hex, as trace viewers show them) of the span active where the line is
    logged; none when no span is (tracing off: the API's invalid span)."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event_dict["trace_id"] = format(context.trace_id, "032x")
        event_dict["span_id"] = format(context.span_id, "016x")
    return event_dict


def _add_service(service: str) -> structlog.types.Processor:
    def processor(_logger: object, _method: str, event_dict: structlog.types.EventDict) -> structlog.types.EventDict:
        event_dict.setdefault("service", service)
        return event_dict

    return processor


_listener: logging.handlers.QueueListener | None = None


class _CurrentStderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``sys.stderr`` as it is when the line is written, not when the handler was made (as the
    standard library's last-resort handler does): a line queued just before stderr was replaced (pytest's
    capture) goes to the stream in place, not to a closed one."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> Any:
        return sys.stderr


def _queued_to_stderr(formatter: logging.Formatter) -> logging.Handler:
    """A handler that renders each record with ``formatter`` and queues the line for the writer thread
    (replacing the thread of an earlier configuration, after it has written what it had)."""
    global _listener
    if _listener is None:
        atexit.register(_write_what_is_queued)
    else:
        _listener.stop()
    lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    writer = _CurrentStderrHandler()
    writer.setFormatter(logging.Formatter("%(message)s"))  # the line is rendered already
    _listener = logging.handlers.QueueListener(lines, writer)
    _listener.start()
    handler = logging.handlers.QueueHandler(lines)
    handler.setFormatter(formatter)
    return handler


def flush_logs() -> None:
    """Write every line logged so far before returning."""
    if _listener is not None:
        _listener.stop()  # writes what is queued, then ends the thread
        _listener.start()


def write_logs_synchronously() -> None:
    """From now on each line is written where it is logged, and what is queued is written first. For the
    end of a process's life: uvicorn ends a signalled server by raising the signal again with its default
    action once the app has shut down, so no exit hook runs to write the lines still queued (its last
    lines, and anything logged at shutdown, were lost)."""
    root = logging.getLogger()
    for i, handler in enumerate(root.handlers):
        if isinstance(handler, logging.handlers.QueueHandler):
            direct = _CurrentStderrHandler()
            direct.setFormatter(handler.formatter)
            root.handlers[i] = direct
    if _listener is not None:
        _listener.stop()


def _write_what_is_queued() -> None:
    if _listener is not None:
        _listener.stop()
