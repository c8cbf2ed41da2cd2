"""Plumbing shared by the live market-data adapters (AKShare, yfinance).

- ``import_optional``: the libraries are optional extras, imported when an adapter is built.
- ``call_library``: a synchronous library call run off the event loop with a timeout; library failures
  become ``DataProviderError`` / ``DataProviderTimeoutError`` with a readable message.
- ``unwrap``: one outcome of ``asyncio.gather(..., return_exceptions=True)``: the value, or its exception raised.
- ``to_float`` / ``to_date`` / ``to_datetime``: cell conversion; a missing or unparsable cell is None, never
  a number; ``complete_bars``: rows → daily bars.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from typing import Any, TypeVar

import pandas as pd

from research.domain.exceptions import DataProviderError, DataProviderTimeoutError
from research.domain.model.market_data import Bar
from shared_contracts.errors import ServiceError

T = TypeVar("T")

_DATE_PREFIX = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})")


class OptionalDependencyMissingError(RuntimeError):
    """A live provider was configured but its library (an optional extra of ``research``) is not installed."""


def import_optional(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise OptionalDependencyMissingError(
            f"the {module} data provider needs the optional extra '{extra}': "
            f"run `uv sync --package research --extra {extra}` (or pip install 'research[{extra}]')"
        ) from exc


async def call_library(
    provider: str,
    what: str,
    fn: Callable[[], T],
    timeout_seconds: float,
    translate: Callable[[Exception], ServiceError | None] | None = None,
) -> T:
    """Run ``fn`` in a worker thread; give up after ``timeout_seconds``.

    The worker thread cannot be killed: on timeout it finishes (or fails) in the background and its
    result is dropped. ``translate`` may turn a library exception into a specific domain error
    (e.g. yfinance's "ticker missing" → ``SymbolNotFoundError``); anything else becomes ``DataProviderError``.
    """
    try:
        return await asyncio.wait_for(asyncio.to_thread(fn), timeout=timeout_seconds)
    except TimeoutError as exc:
        raise DataProviderTimeoutError(f"{provider}: {what} did not answer within {timeout_seconds:g}s") from exc
    except ServiceError:
        raise
    except Exception as exc:
        translated = translate(exc) if translate is not None else None
        if translated is not None:
            raise translated from exc
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else "no message"
        raise DataProviderError(f"{provider}: {what} failed ({type(exc).__name__}: {detail})") from exc


def unwrap(outcome: T | BaseException) -> T:
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def to_float(value: object) -> float | None:
    """A finite float, or None for a missing cell (None, NaN, NaT, pd.NA, '', '-', '--') or a non-number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        if text in {"", "-", "--", "None", "nan", "NaN"}:
            return None
        value = text
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def to_date(value: object) -> date | None:
    """A calendar date from a date, datetime, pandas Timestamp or ``YYYY-MM-DD[ ...]`` / ``YYYYMMDD`` text."""
    if value is None:
        return None
    if isinstance(value, datetime):  # pd.Timestamp is a datetime; NaT is caught here too
        return None if pd.isna(value) else value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = _DATE_PREFIX.match(value.strip())
        if match is None:
            return None
        try:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
    return None


def to_datetime(value: object) -> datetime | None:
    """A datetime from a datetime / pandas Timestamp or ISO-8601 text (``2025-06-19 10:32:00``, ``...T12:00:00Z``)."""
    if isinstance(value, datetime):
        return None if pd.isna(value) else value.to_pydatetime() if isinstance(value, pd.Timestamp) else value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def complete_bars(
    rows: Iterable[tuple[object, Mapping[Any, Any]]],
    columns: tuple[str, str, str, str, str],
    end: date | None,
    volume_unit: float = 1.0,
    amount: str | None = None,
) -> tuple[Bar, ...]:
    """(day, row) pairs → daily bars up to ``end``, oldest first; ``columns`` name open, high, low, close and
    volume (in ``volume_unit`` shares). An incomplete bar is dropped, never patched."""
    bars: dict[date, Bar] = {}
    for stamp, row in rows:
        day = to_date(stamp)
        values = [number for column in columns if (number := to_float(row.get(column))) is not None]
        if day is None or (end is not None and day > end) or len(values) < len(columns):
            continue
        o, h, lo, c, volume = values
        bars[day] = Bar(day, o, h, lo, c, volume * volume_unit, to_float(row.get(amount)) if amount else None)
    return tuple(bars[d] for d in sorted(bars))
