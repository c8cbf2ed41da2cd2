"""Facts → JSON-ready dicts (dates as ISO strings, tuples as lists, non-finite floats as None)."""

from __future__ import annotations

import dataclasses
import functools
import math
from datetime import date
from typing import Any


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def to_jsonable(value: Any, *, exclude: frozenset[str] = frozenset()) -> Any:
    if value is None or isinstance(value, str | int):  # the common leaves first (bool is an int)
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_jsonable(getattr(value, name)) for name in _field_names(type(value)) if name not in exclude}
    return value
