"""Structured JSON logs (structlog) for our own loggers and the standard library's (uvicorn's too)."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(level: str = "INFO", *, json: bool = True, service: str | None = None) -> None:
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
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
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        # uvicorn's --no-access-log leaves its access logger without handlers and not propagating.
        switched_off = name == "uvicorn.access" and not logger.handlers and not logger.propagate
        logger.handlers[:] = []
        logger.setLevel(logging.NOTSET)  # LOG_LEVEL governs uvicorn's loggers too (uvicorn sets INFO)
        logger.propagate = not switched_off


def _add_service(service: str) -> structlog.types.Processor:
    def processor(_logger: object, _method: str, event_dict: structlog.types.EventDict) -> structlog.types.EventDict:
        event_dict.setdefault("service", service)
        return event_dict

    return processor
